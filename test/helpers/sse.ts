// A GraphQL subscription over SSE, opened the way a browser's EventSource client or curl would.
// The stream is read from the start: Yoga subscribes only once the response body is pulled.
import type { TestApp } from './app.js';

export async function openSubscription(t: Pick<TestApp, 'fetch'>, query: string) {
  const controller = new AbortController();
  const response = await t.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  let changed = () => {};
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      changed();
    }
    ended = true;
    changed();
  })();
  return {
    response,
    /** The first `data:` message whose text contains `field`, parsed. */
    async first(field: string): Promise<any> {
      for (;;) {
        const data = buffer.split('\n').find((line) => line.startsWith('data: ') && line.includes(field));
        if (data) return JSON.parse(data.slice(6));
        if (ended) throw new Error(`stream ended without a message containing ${field}`);
        await new Promise<void>((resolve) => (changed = resolve));
      }
    },
    async close() {
      controller.abort();
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}
