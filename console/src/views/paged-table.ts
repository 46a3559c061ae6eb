/** A list read page by page (`limit`/`offset`), with a button for the next page. */
import { button, fill, h, type Child } from "../dom.js";
import type { OffsetPagination } from "../types.js";

export interface Column<T> {
  title: string;
  cell(item: T): Child;
}

const PAGE = 50;

export function pagedTable<T>(opts: {
  columns: Column<T>[];
  load(limit: number, offset: number): Promise<{ data: T[]; pagination: OffsetPagination }>;
  empty: string;
  label: string;
}): HTMLElement {
  const body = h("tbody");
  const status = h("p", { class: "note", attrs: { role: "status" } });
  const more = button("Load more", () => void next());
  more.hidden = true;
  let offset = 0;

  async function next(): Promise<void> {
    more.disabled = true;
    status.textContent = "Loading…";
    try {
      const page = await opts.load(PAGE, offset);
      offset += page.data.length;
      for (const item of page.data) body.append(h("tr", {}, ...opts.columns.map((c) => h("td", {}, c.cell(item)))));
      status.textContent = offset === 0 ? opts.empty : "";
      more.hidden = !page.pagination.hasMore;
    } catch (err) {
      status.textContent = err instanceof Error ? err.message : String(err);
    } finally {
      more.disabled = false;
    }
  }

  const head = h("thead", {}, h("tr", {}, ...opts.columns.map((c) => h("th", { attrs: { scope: "col" } }, c.title))));
  const table = h("table", { attrs: { "aria-label": opts.label } }, head, body);
  const el = h("div", { class: "paged" });
  fill(el, table, status, more);
  void next();
  return el;
}
