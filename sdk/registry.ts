/**
 * The resources of the SDK: the one registry of provider/registry.ts (the SDK classes, `schema.json` and the
 * reference pages docs/resources/*.md are generated from it and the zod models it names, `npm run docs`).
 * This module must not import @pulumi/pulumi: the generators and CDKTF adapter read it too.
 */
export { RESOURCES, entryOf, type ResourceEntry, type ExportName } from '../provider/registry';

/** The Pulumi package name (stack config namespace `harvester:`, schema tokens `harvester:index:<Class>`). */
export const PACKAGE_NAME = 'harvester';
