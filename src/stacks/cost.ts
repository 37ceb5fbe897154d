// What a watched stack's work costs of the rate limit (http/rate-limit.ts), known only once the
// stack is read: its findings, its VEX, its Atom feed and saving it all run the scan's matching on
// its components, so each is priced like a scan of as many packages (the weights' table,
// rest/request-costs.ts, prices the scan at 5 for up to 1,000 packages).
export const stackCosts = {
  /** 1 unit per this many components: a 1,000-component stack costs a scan's 5. */
  componentsPerUnit: 200,
  /** A VEX page: 1 more per this many vulnerabilities asked for beyond the first of them. */
  vulnerabilitiesPerUnit: 100,
} as const;

/** The units of a request on a stack of `components` entries whose answer is up to `vulnerabilities` long (a VEX page). */
export const stackWorkCost = (components: number, vulnerabilities = 0) =>
  Math.ceil(Math.max(1, components) / stackCosts.componentsPerUnit) + Math.max(0, Math.ceil(vulnerabilities / stackCosts.vulnerabilitiesPerUnit) - 1);
