/**
 * Fetching missing blocks: single flight ({@code BlockFetcher#claim}, the one way in), runs coalesced into origin
 * requests, the fetch permits and the staging memory.
 */
package dev.offcache.range.fetch;
