/**
 * The operators' command-line tools: one shared command line (error lines, exit statuses, --version) for the
 * registry, sharded-L2 and counters-file commands.
 */
package dev.offcache.tools;
