/**
 * A list read a page at a time (`limit`/`offset`), with previous and next; `refresh()` reads the page
 * shown again in place (for a list that follows changes), without the loading note.
 */
import { button, fill, h, type Child } from "../dom.js";
import { describe } from "../problems.js";
import type { OffsetPagination } from "../types.js";

export interface Column<T> {
  title: string;
  cell(item: T): Child;
}

export interface PagedTable {
  el: HTMLElement;
  refresh(): Promise<void>;
}

const PAGE = 50;

export function pagedTable<T>(opts: {
  columns: Column<T>[];
  load(limit: number, offset: number): Promise<{ data: T[]; pagination: OffsetPagination }>;
  empty: string;
  label: string;
  /** Marks a row (`data-id`), so tests and styles can find it. */
  id?(item: T): string;
}): PagedTable {
  const body = h("tbody");
  const status = h("p", { class: "note", attrs: { role: "status" } });
  const previous = button("← Newer", () => void show(Math.max(0, offset - PAGE)));
  const next = button("Older →", () => void show(offset + PAGE));
  let offset = 0;
  let reading = 0;

  async function read(at: number, quiet: boolean): Promise<void> {
    const ticket = ++reading;
    if (!quiet) status.textContent = "Loading…";
    try {
      const page = await opts.load(PAGE, at);
      // A slower earlier read must not overwrite a later one.
      if (ticket !== reading) return;
      offset = at;
      fill(
        body,
        ...page.data.map((item) => h("tr", { attrs: opts.id ? { "data-id": opts.id(item) } : {} }, ...opts.columns.map((c) => h("td", {}, c.cell(item))))),
      );
      status.textContent = page.data.length === 0 ? (offset === 0 ? opts.empty : "No more.") : "";
      previous.hidden = offset === 0;
      next.hidden = !page.pagination.hasMore;
    } catch (err) {
      if (ticket === reading) status.textContent = describe(err);
    }
  }
  const show = (at: number) => read(at, false);

  const head = h("thead", {}, h("tr", {}, ...opts.columns.map((c) => h("th", { attrs: { scope: "col" } }, c.title))));
  const table = h("table", { attrs: { "aria-label": opts.label } }, head, body);
  const el = h("div", { class: "paged" });
  previous.hidden = next.hidden = true;
  fill(el, table, status, h("div", { class: "pages" }, previous, next));
  void show(0);
  return { el, refresh: () => read(offset, true) };
}
