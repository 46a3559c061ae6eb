/**
 * Element building. Text goes in as text nodes only (`textContent`, `createTextNode`): nothing a user or
 * a model wrote is ever parsed as HTML. The page's Trusted Types policy (`require-trusted-types-for`)
 * makes any HTML sink throw, so this is enforced, not only followed.
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes set by name; the console's code chooses the names, never the data. */
  attrs?: Record<string, string>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) el.setAttribute(name, value);
  for (const [type, listener] of Object.entries(props.on ?? {})) el.addEventListener(type, listener as EventListener);
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export function button(label: string, onClick: (event: MouseEvent) => void, props: Props = {}): HTMLButtonElement {
  return h("button", { ...props, attrs: { type: "button", ...props.attrs }, on: { ...props.on, click: onClick } }, label);
}

/** A date as the reader's locale shows it, or the raw text when it is not one. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
