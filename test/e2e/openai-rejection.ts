import OpenAI from 'openai';

/** The official client's APIError of a call that must fail; throws when it succeeds or fails otherwise. */
export async function rejection(run: () => Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await run();
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}
