// The GraphQL operations the throughput benchmark sends, shared with the raw server that recognises them by their text.
export const smallGraphqlQuery = '{ issues(limit: 20) { data { id title severity publishedAt } meta { total } } }';
