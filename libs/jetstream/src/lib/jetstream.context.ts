import { BaseRpcContext } from '@nestjs/microservices';
import type { JsMsg } from 'nats';

/** What a handler gets besides the payload: the raw message and its delivery count. */
export class JetStreamContext extends BaseRpcContext<[JsMsg]> {
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
}
