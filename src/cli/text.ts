/** Plain-text output of the commands: aligned columns, times, shortened text. */
import { stripVTControlCharacters } from "node:util";

/** What a cell takes on screen: its colours take none. */
const width = (cell: string) => stripVTControlCharacters(cell).length;

/** Rows under a header, each column as wide as its widest cell, two spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => width(r[i] ?? ""))));
  const pad = (cell: string, i: number) => cell + " ".repeat(widths[i]! - width(cell));
  return [header, ...rows].map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : pad(cell, i))).join("  ")).join("\n") + "\n";
}

/** A time as ISO 8601 UTC: unambiguous and sortable. */
export function when(at: string | Date): string {
  return typeof at === "string" ? at : at.toISOString();
}

/** A duration in ms as seconds with one decimal, or minutes past two. */
export function duration(ms: number): string {
  return ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;
}

/** One line of at most `max` characters: whitespace runs become one space, and a cut ends with `…`. */
export function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
