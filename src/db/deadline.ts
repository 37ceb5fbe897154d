// A database read the caller will not wait on past a deadline (a hanging database must not hold a
// probe, a cache lookup or an export): its value, or undefined once the time is up.
export async function withinDeadline<T>(read: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}
