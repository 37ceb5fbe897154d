// The severity order, decided once: the schema's enum declares it most severe first, and SQL
// compares severities in that same order (the scan's severityMin).
import { Severity } from '../generated/prisma/enums.js';

/** Every severity, most severe first. */
export const severities = Object.values(Severity);

/** `severity`, raised to `floor` when it is less severe. */
export const atLeastSeverity = (severity: Severity, floor: Severity): Severity => (severities.indexOf(severity) > severities.indexOf(floor) ? floor : severity);
