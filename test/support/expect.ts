/** Assertions on the error contract, shared by the black-box tests. */
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import type { Reply } from "./server.js";

/** `{error, message}` with the given status and code, and nothing that looks like a stack trace. */
export function expectError(res: Reply<any>, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.be.an("object");
  expect(res.body.error).to.equal(code);
  expect(res.body.message)
    .to.be.a("string")
    .and.not.match(/\n\s+at /);
}

/** The `path: constraint` entries of a validation message (they are joined by `; `). */
export function entriesOf(res: Reply<any>): string[] {
  return String(res.body?.message ?? "").split("; ");
}

/** A `400 validation_error` whose message lists every given `path: constraint` entry. */
export function expectValidation(res: Reply<any>, ...entries: string[]): void {
  expectError(res, 400, "validation_error");
  const got = entriesOf(res);
  for (const entry of entries) expect(got, `message: ${res.body.message}`).to.include(entry);
}

/** A value a careless service might echo back; letters, digits and dashes like real API tokens. */
export function secretLike(): string {
  return `sk-live-${randomBytes(18).toString("hex")}`;
}

/**
 * The key ceiling counts in fixed 60-second windows aligned to the clock (the server runs in this
 * process, so it shares the clock). A test that needs several requests in one window waits for the
 * next window when fewer than `needMs` remain in the current one.
 */
export async function roomInWindow(needMs = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
