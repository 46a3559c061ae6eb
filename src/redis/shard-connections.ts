/**
 * A blocking read (XREAD BLOCK, XREADGROUP BLOCK) holds its connection, and on a Redis Cluster one
 * command may name keys of one slot only. So each group of shards (`Keys.shardGroups`: every shard on
 * a single node, one shard on a cluster) is read on a connection of its own, to the node that holds
 * the group's slot, made again when the slot has moved to another node.
 */
import { Cluster, type Redis } from "ioredis";
import { unavailable } from "../errors.js";
import { connectNode, type RedisClient, type RedisTarget } from "./client.js";
import type { Keys } from "./keys.js";

export class ShardConnection {
  private connection: Redis | null = null;
  private node: string | null = null;

  /** `slot`: the group's slot on a cluster (null on a single node); `commands`: the process's shared client, which knows the slots. */
  constructor(
    private readonly target: RedisTarget,
    private readonly commands: RedisClient,
    private readonly slot: number | null,
    private readonly name: string,
  ) {}

  /** The node that holds the slot now (`host:port`); null on a single node. */
  private where(): string | null {
    if (!(this.commands instanceof Cluster) || this.slot === null) return null;
    const node = this.commands.slots[this.slot]?.[0];
    if (!node) throw unavailable("the Redis Cluster's slots are not known yet");
    return node;
  }

  /** The connection for the next blocking read: to the node that holds the slot now. */
  get(): Redis {
    const node = this.where();
    if (!this.connection || node !== this.node) {
      this.connection?.disconnect();
      this.connection = connectNode(this.target, node, this.name);
      this.node = node;
    }
    return this.connection;
  }

  /** After a failed read: the slots are learnt again, in case this one moved (MOVED, or its node failed over). */
  failed(): void {
    if (this.commands instanceof Cluster) this.commands.refreshSlotsCache();
  }

  /** Ends the blocking read of the connection whose CLIENT ID is `clientId` (sent to the node it is on). */
  async unblock(clientId: number): Promise<void> {
    const commands = this.commands;
    const via = commands instanceof Cluster ? commands.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === this.node) : commands;
    await via?.client("UNBLOCK", clientId);
  }

  disconnect(): void {
    this.connection?.disconnect();
    this.connection = null;
  }
}

/** A group of shards read together, and its connection. */
export interface ShardReader {
  shards: number[];
  connection: ShardConnection;
}

/** One connection per group of shards, for the blocking reads of `name` (it labels them in CLIENT LIST); each connects at its first read. */
export function shardReaders(target: RedisTarget, commands: RedisClient, keys: Keys, name: string): ShardReader[] {
  return keys.shardGroups().map((shards) => ({ shards, connection: new ShardConnection(target, commands, keys.slotOf(shards[0]!), name) }));
}
