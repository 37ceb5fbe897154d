// Where the REST API lives, and the paths of its resources that other modules link to (Atom
// entries, webhook findings, stack feed tokens). rest/routes.ts serves under restBasePath; a
// domain module may not import the REST edge, so the one place that decides the base is here.
export const restBasePath = '/api/v1';

export const issuesPath = `${restBasePath}/issues`;
export const issuePath = (id: string) => `${issuesPath}/${id}`;
export const digestsPath = `${restBasePath}/digests`;
export const digestPath = (date: string) => `${digestsPath}/${date}`;
export const stackFeedPath = (token: string) => `${restBasePath}/stacks/${token}.atom`;

const [before, after] = stackFeedPath('\0').split('\0') as [string, string];

/** The token a stack feed's path names (stackFeedPath's inverse), or undefined for any other path. */
export function stackFeedToken(pathname: string): string | undefined {
  if (pathname.length <= before.length + after.length || !pathname.startsWith(before) || !pathname.endsWith(after)) return undefined;
  const token = pathname.slice(before.length, pathname.length - after.length);
  return token.includes('/') ? undefined : token;
}
