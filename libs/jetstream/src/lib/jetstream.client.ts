import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { PubAck } from 'nats';
import { JetStreamConnection, type StreamSpec } from './jetstream.connection';

export interface JetStreamClientOptions {
  servers: string;
  name: string;
  /** Streams this client publishes into, created if missing so the first publish cannot be lost. */
  streams: readonly StreamSpec[];
}

/** Payloads published through the client carry their own de-duplication id. */
export interface Identified {
  msgId: string;
  payload: unknown;
  headers?: Record<string, string>;
}

/**
 * Nest `ClientProxy` over JetStream: `emit(subject, {msgId, payload})` publishes to the stream
 * with `Nats-Msg-Id` and resolves on the stream's acknowledgement. Request/reply is not offered:
 * Switchyard services only exchange events.
 */
export class JetStreamClient extends ClientProxy {
  private conn?: JetStreamConnection;
  private connecting?: Promise<JetStreamConnection>;

  constructor(private readonly options: JetStreamClientOptions) {
    super();
  }

  async connect(): Promise<JetStreamConnection> {
    if (this.conn) {
      return this.conn;
    }
    this.connecting ??= (async () => {
      const conn = await JetStreamConnection.connect({
        servers: this.options.servers,
        name: this.options.name,
      });
      for (const stream of this.options.streams) {
        await conn.ensureStream(stream);
      }
      this.conn = conn;
      return conn;
    })();
    try {
      return await this.connecting;
    } catch (err) {
      this.connecting = undefined;
      throw err;
    }
  }

  /** Awaited publish for the Nest client proxy (`emit`); services use JetStreamConnection.publish, typed by subject. */
  async publishEvent(subject: string, message: Identified): Promise<PubAck> {
    const conn = await this.connect();
    return conn.publishUnchecked(subject, message.payload, {
      msgId: message.msgId,
      headers: message.headers,
    });
  }

  isConnected(): boolean {
    return !!this.conn && !this.conn.nc.isClosed();
  }

  async close(): Promise<void> {
    await this.conn?.close();
    this.conn = undefined;
    this.connecting = undefined;
  }

  unwrap<T>(): T {
    if (!this.conn) {
      throw new Error('JetStream client is not connected');
    }
    return this.conn as T;
  }

  override on(): never {
    throw new Error('JetStreamClient does not emit transport events');
  }

  protected override async dispatchEvent<T = unknown>(packet: ReadPacket<Identified>): Promise<T> {
    const ack = await this.publishEvent(String(packet.pattern), packet.data);
    return ack as T;
  }

  protected publish(_packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    callback({ err: new Error('JetStreamClient supports emit() only (no request/reply)'), isDisposed: true });
    return () => undefined;
  }
}
