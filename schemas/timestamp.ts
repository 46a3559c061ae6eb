/** Timestamp: an ISO 8601 date-time string. */
export const timestampSchema = { $id: "timestamp", title: "Timestamp", type: "string", format: "date-time" } as const;
