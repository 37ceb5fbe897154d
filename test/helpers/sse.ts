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
  let read = 0;
  return {
    response,
    /** The next `data:` message (after those already returned) whose text contains `field`, parsed. */
    async next(field: string): Promise<any> {
      for (;;) {
        const lines = buffer.split('\n').filter((line) => line.startsWith('data: ') && line.includes(field));
        // The last line may still be arriving; a complete one ends with the blank line after it.
        const complete = buffer.endsWith('\n\n') ? lines.length : lines.length - 1;
        if (complete > read) return JSON.parse(lines[read++]!.slice(6));
        if (ended) throw new Error(`stream ended without another message containing ${field}`);
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
