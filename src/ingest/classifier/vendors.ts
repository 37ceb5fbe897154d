// Vendors as the item names them (raw) and normalised through the vendor table.
import type { Item } from '../item.js';
import { defaultCatalogue, findPackage } from './catalogue.js';
import { vendorAliases } from './tables.js';

/** GitHub owners of the advisory's PACKAGE/repository references ("run-llama" for llama_index). */
function repositoryOwners(item: Item): string[] {
  const record = item.source.record as { references?: { type?: string; url?: string }[] };
  const owners: string[] = [];
  for (const ref of item.format === 'osv' ? (record.references ?? []) : []) {
    if (ref.type !== 'PACKAGE' || !ref.url) continue;
    const match = /^https?:\/\/github\.com\/([^/]+)\/[^/]+/i.exec(ref.url);
    if (match?.[1]) owners.push(match[1]);
  }
  return owners;
}

export function normaliseVendor(raw: string): string | undefined {
  return vendorAliases.find((v) => v.pattern.test(raw))?.vendor;
}

export interface VendorFacts {
  raw: string[];
  normalised: string[];
}

export function vendorFacts(item: Item): VendorFacts {
  const raw = new Set<string>();
  const normalised = new Set<string>();
  for (const hint of item.vendorHints) {
    raw.add(hint);
    // An operator naming a vendor we do not know still names a vendor.
    normalised.add(normaliseVendor(hint) ?? hint);
  }
  for (const entry of item.affected) {
    const { ecosystem, name } = entry.package;
    raw.add(name);
    const known = findPackage(defaultCatalogue(), ecosystem, name)?.vendor ?? normaliseVendor(name);
    if (known) normalised.add(known);
  }
  for (const owner of repositoryOwners(item)) {
    raw.add(owner);
    normalised.add(normaliseVendor(owner) ?? owner);
  }
  // Vendors the title names ("Microsoft 365 Copilot ...") count when nothing more precise did.
  if (normalised.size === 0) {
    for (const { vendor, pattern } of vendorAliases) {
      const found = pattern.exec(item.title);
      if (found) {
        raw.add(found[0]);
        normalised.add(vendor);
      }
    }
  }
  return { raw: [...raw], normalised: [...normalised] };
}

/** Lower-cased normalised and raw names, what the vendor filter and scan compare against. */
export function vendorKeys(facts: VendorFacts): string[] {
  return [...new Set([...facts.normalised, ...facts.raw].map((v) => v.toLowerCase()))];
}
