// The per-request server context as the REST gate leaves it, for the response hooks that need the
// route's answer (the paging links): they read it here instead of parsing the JSON body back (a
// second JSON.parse of every list page).
export interface RestAnswered {
  /** The route's answer when this request ran through the REST gate; absent otherwise (a cached response, say). */
  restAnswer?: unknown;
}
