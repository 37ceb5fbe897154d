// One-off work in a child process, for memory's sake: what the work loads and touches (the schema
// engine's Wasm, the classifier's lists and model, the code that ran once, and the malloc'd memory
// all of it went through) leaves with the child. A worker thread would free its own V8 heap too,
// but it shares the process's malloc arena (`npm start` runs with one), and what it left there kept
// the idle server 10 to 30 MB bigger (bench/README.md, process memory).
import { fork, type Serializable } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs `name` (a module beside `base`, the caller's import.meta.url) in a child process, hands it
 * `data` (over the IPC channel: a database URL stays out of the process list) and resolves with the
 * one answer it sends, once the child has exited. The child is compiled JavaScript under `npm start`,
 * TypeScript under tsx (whose loader it inherits with the process's flags and environment).
 */
export function childAnswer<T>(base: string, name: string, data: Serializable): Promise<T> {
  const child = fork(fileURLToPath(new URL(`./${name}${extname(fileURLToPath(base))}`, base)), { serialization: 'advanced' });
  child.send(data);
  return new Promise((resolve, reject) => {
    let answer: { value: T } | undefined;
    child.once('message', (value: T) => (answer = { value }));
    child.once('error', reject);
    // 'close', not 'exit': it comes once the IPC channel has been read to its end too.
    child.once('close', (code, signal) =>
      answer ? resolve(answer.value) : reject(new Error(`the ${name} process ended (${signal ?? `exit code ${code}`}) without an answer`)),
    );
  });
}

/**
 * The child's side: takes the data childAnswer sent, does `work`, sends back its answer and exits
 * (a pg pool left with one idle connection would otherwise keep it for pg's 10 s idle timeout).
 * Ctrl-C reaches the whole process group: the child finishes its work anyway, as the server lets
 * its start-up work finish before it stops, so no seed or migration is cut in half.
 */
export function answerParent<D, T>(work: (data: D) => Promise<T>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});
  process.once('message', (data) => {
    work(data as D).then(
      (answer) => process.send!(answer, () => process.exit(0)),
      (err: unknown) => {
        // The parent sees the process end without an answer; the reason goes to stderr.
        console.error(err);
        process.exit(1);
      },
    );
  });
}
