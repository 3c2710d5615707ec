import { Injectable } from '@nestjs/common';
import {
  type ComponentContext,
  type ComponentEffect,
  userFillUpInputSchema,
  userFillUpOutputs,
  userFillUpTips,
} from '@switchyard/graph';
import type { ComponentRunner } from '../component-runner';

/** RAGFlow's UserFillUp: pauses for the form the first time; with the answer, its fields become the outputs. */
@Injectable()
export class UserFillUpComponent implements ComponentRunner {
  readonly names: readonly string[] = ['UserFillUp'];

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    if (ctx.answer) {
      return {
        outputs: userFillUpOutputs(ctx.component.params, ctx.answer),
        summary: 'UserFillUp: the user filled in the form',
      };
    }
    const tips = userFillUpTips(ctx.scope, ctx.component.params);
    return {
      outputs: {},
      pause: {
        question: tips || 'Please fill in the form.',
        input_schema: userFillUpInputSchema(ctx.component.params),
      },
      summary: 'UserFillUp: waiting for the user',
    };
  }
}
