/** MessageAttachment: Sizes (25 MB, 50 MB for PDF) and the data URL's media type are checked in code. */
export const attachmentSchema = {
  $id: "attachment",
  title: "MessageAttachment",
  description: "Sizes (25 MB, 50 MB for PDF) and the data URL's media type are checked in code.",
  type: "object",
  required: ["type", "filename", "mediaType", "source"],
  additionalProperties: false,
  properties: {
    type: { const: "file" },
    filename: { type: "string", minLength: 1, maxLength: 255 },
    mediaType: {
      enum: [
        "application/pdf",
        "text/csv",
        "application/csv",
        "text/plain",
        "text/markdown",
        "text/x-markdown",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "image/png",
        "image/jpeg",
        "image/webp",
        "image/gif",
        "image/bmp",
      ],
    },
    sizeBytes: { type: "integer", minimum: 0, maximum: 52428800 },
    source: {
      type: "object",
      required: ["type", "dataUrl"],
      additionalProperties: false,
      properties: {
        type: { const: "data_url" },
        // Parameters may follow the type (RFC 2397: `data:text/plain;charset=utf-8;base64,…`).
        dataUrl: { type: "string", minLength: 1, maxLength: 70000000, pattern: "^data:[a-z0-9.+/-]+(;[A-Za-z0-9._-]+=[A-Za-z0-9._-]+)*;base64," },
      },
    },
    analysisMode: { enum: ["default", "visual"] },
  },
} as const;
