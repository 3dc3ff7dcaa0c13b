/**
 * The reference engine's fixed vocabulary: the words its generator writes, in this order (the order of the
 * per-word logit biases of a reference add-on, see reference-lora.ts).
 */
export const referenceVocabulary: readonly string[] = [
  'the', 'gateway', 'routes', 'each', 'request', 'to', 'a', 'ready', 'replica', 'and', 'streams', 'tokens',
  'back', 'model', 'answers', 'with', 'care', 'every', 'deployment', 'scales', 'on', 'demand', 'while',
  'accelerators', 'stay', 'busy', 'berth', 'keeps', 'state', 'in', 'one', 'place', 'so', 'clients', 'see',
  'consistent', 'results', 'across', 'regions', 'quietly', 'reference', 'engine', 'writes', 'plain', 'text',
  'for', 'tests', 'that', 'need', 'stable', 'output', 'under', 'load', 'of', 'many', 'small', 'calls',
  'harbor', 'ships', 'dock', 'safely', 'tonight', 'morning', 'light',
];
