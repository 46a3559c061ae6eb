/** Each session's todo list (the `todo` tool), replaced as a whole. */
import type { Collection, Db } from "mongodb";

export interface TodoItem {
  content: string;
  status: string;
}

interface TodoDoc {
  _id: string;
  items: TodoItem[];
}

export class TodoStore {
  private readonly todos: Collection<TodoDoc>;

  constructor(db: Db) {
    this.todos = db.collection<TodoDoc>("session_todos");
  }

  async replace(sessionId: string, items: TodoItem[]): Promise<void> {
    await this.todos.replaceOne({ _id: sessionId }, { items }, { upsert: true });
  }

  async get(sessionId: string): Promise<TodoItem[]> {
    return (await this.todos.findOne({ _id: sessionId }))?.items ?? [];
  }
}
