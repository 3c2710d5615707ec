import { componentIdOfNode } from '@switchyard/contracts';

/** The nodes whose tokens are the answer: the output node, or a graph agent's Messages (its only streaming components). */
export const isAnswerNode = (node: string): boolean =>
  node === 'output' || componentIdOfNode(node) !== undefined;
