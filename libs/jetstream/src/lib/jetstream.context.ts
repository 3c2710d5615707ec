import { BaseRpcContext } from '@nestjs/microservices';
import type { JsMsg } from 'nats';

const NEVER_ABORTED = new AbortController().signal;

/**
 * What a handler gets besides the payload: the raw message, its delivery count, and a signal
 * aborted when the process hands the message back unfinished (a drain outlived its deadline).
 */
export class JetStreamContext extends BaseRpcContext<[JsMsg, AbortSignal?]> {
  getMessage(): JsMsg {
    return this.args[0];
  }
  getSubject(): string {
    return this.args[0].subject;
  }
  /** 1 on the first delivery, 2 on the first redelivery, … */
  getDeliveryCount(): number {
    return this.args[0].info.redeliveryCount;
  }
  getHeader(name: string): string | undefined {
    return this.args[0].headers?.get(name) || undefined;
  }
  /**
   * Aborted once the message was handed back to the stream (the drain's deadline passed while the
   * handler still worked): whatever the handler does from then on is discarded — it must stop its
   * calls and publish nothing, since another delivery does the work again.
   */
  get signal(): AbortSignal {
    return this.args[1] ?? NEVER_ABORTED;
  }
}
