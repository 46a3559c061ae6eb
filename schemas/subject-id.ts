/** SubjectId: The caller's stable identifier for a person, team, organization or workspace. */
export const subjectIdSchema = {
  $id: "subject-id",
  title: "SubjectId",
  description: "The caller's stable identifier for a person, team, organization or workspace.",
  type: "string",
  minLength: 1,
  maxLength: 200,
} as const;
