// A response body produced while it is sent (the CSV export). Once the status and the first bytes
// are out, a failure (a database error or outage between pages) can only cut the body short, and
// the client must be able to tell: on a listening server the connection is destroyed, so the
// chunked body never gets its final chunk and no client mistakes it for a whole file. The stream
// handed to the node adapter then ends instead of erroring: an errored body leaves the adapter's
// response open (the client hangs) and its later cancel() rejects with nobody listening, which
// used to end the process once the client gave up. In-process (no socket) the body errors.
import type { ServerResponse } from 'node:http';

/** What node:http's adapter puts in Yoga's server context (absent for in-process calls). */
interface NodeResponseContext {
  res?: Pick<ServerResponse, 'destroy'>;
}

export function abortOnFailure(source: ReadableStream<Uint8Array>, serverContext: unknown, onError: (err: unknown) => void): ReadableStream<Uint8Array> {
  const res = (serverContext as NodeResponseContext | undefined)?.res;
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        onError(err);
        if (!res) return controller.error(new Error('The response was cut short'));
        res.destroy();
        return controller.close();
      }
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason).catch(() => undefined),
  });
}
