/**
 * Preloaded (`node --import`) into the server-everything child process, whose entry point calls
 * `app.listen(process.env.PORT)` with no host. A listen on a bare port binds 127.0.0.1 instead of every
 * interface, and, once listening, tells the parent over the IPC channel which port the kernel chose for
 * PORT=0: no port is guessed in advance, and the parent knows the moment the server accepts connections.
 */
import { Server } from "node:net";

const listen = Server.prototype.listen;

Server.prototype.listen = function (this: Server, ...args: unknown[]): Server {
  const [port, second, ...rest] = args;
  const barePort = (typeof port === "number" || typeof port === "string") && /^\d+$/.test(String(port)) && typeof second !== "string";
  const withHost = barePort ? [port, "127.0.0.1", ...(second === undefined ? [] : [second]), ...rest] : args;
  this.once("listening", () => {
    const address = this.address();
    if (address !== null && typeof address === "object") process.send?.({ listening: address.port });
  });
  return Reflect.apply(listen, this, withHost) as Server;
};
