/**
 * A list call's answer: awaited, its first page; iterated with `for await`, every item of every page,
 * each page fetched when the one before is used up. Offset lists (agents, sessions, vaults, …) continue
 * at `offset + data.length` while `hasMore`; event history continues `after` the page's last sequence;
 * the deployments interface's lists continue at their `next_cursor`.
 */
export interface OffsetPage<T> {
  data: T[];
  pagination: { offset: number; limit: number; hasMore: boolean };
}
export interface SequencePage<T> {
  data: T[];
  pagination: { after: number; limit: number; hasMore: boolean };
}

export class PagePromise<P extends { data: unknown[] }, C = number> implements PromiseLike<P>, AsyncIterable<P["data"][number]> {
  private first: Promise<P> | undefined;

  constructor(
    private readonly fetchPage: (cursor: C | undefined) => Promise<P>,
    /** The cursor of the page after `page`, or undefined when it was the last. */
    private readonly next: (page: P) => C | undefined,
  ) {}

  private firstPage(): Promise<P> {
    return (this.first ??= this.fetchPage(undefined));
  }

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.firstPage().catch(onRejected);
  }

  /** Every page, the first included. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let page = await this.firstPage();
    for (;;) {
      yield page;
      const cursor = this.next(page);
      if (cursor === undefined || page.data.length === 0) return;
      page = await this.fetchPage(cursor);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<P["data"][number], void, undefined> {
    for await (const page of this.pages()) for (const item of page.data as P["data"][number][]) yield item;
  }

  /** Every item, in one array (mind the size of what you list). */
  async all(): Promise<P["data"]> {
    const items: P["data"][number][] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}

export const offsetPages = <T, P extends OffsetPage<T>>(fetchPage: (offset: number | undefined) => Promise<P>) =>
  new PagePromise<P>(fetchPage, (page) => (page.pagination.hasMore ? page.pagination.offset + page.data.length : undefined));

export const sequencePages = <T, P extends SequencePage<T>>(fetchPage: (after: number | undefined) => Promise<P>) =>
  new PagePromise<P>(fetchPage, (page) => (page.pagination.hasMore ? page.pagination.after : undefined));

export interface CursorPage<T> {
  data: T[];
  next_cursor: string | null;
}

export const cursorPages = <T, P extends CursorPage<T>>(fetchPage: (cursor: string | undefined) => Promise<P>) =>
  new PagePromise<P, string>(fetchPage, (page) => page.next_cursor ?? undefined);
