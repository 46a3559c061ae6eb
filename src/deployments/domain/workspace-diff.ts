/**
 * What changed in a workspace between two scans (pure): each file's size and modification time before
 * and after. A file is `created`, `modified` (size or time differs) or `deleted`; directories are not
 * files (a new empty directory changes nothing a reader of files sees).
 */

/** Path (workspace-relative) → [size in bytes, modification time in ms]. */
export type Manifest = Map<string, readonly [number, number]>;

export interface FileChange {
  path: string;
  change: "created" | "modified" | "deleted";
  /** The size after the change (absent for `deleted`). */
  size?: number;
}

export function diffManifests(before: Manifest, after: Manifest): FileChange[] {
  const changes: FileChange[] = [];
  for (const [path, [size, mtime]] of after) {
    const old = before.get(path);
    if (!old) changes.push({ path, change: "created", size });
    else if (old[0] !== size || old[1] !== mtime) changes.push({ path, change: "modified", size });
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push({ path, change: "deleted" });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Items in groups of at most `size`, in order. */
export function inGroups<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
