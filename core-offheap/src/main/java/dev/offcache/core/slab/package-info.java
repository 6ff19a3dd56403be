/**
 * Fixed-size slots in one off-heap slab, handed out as reference-counted block handles; the block-size rule ({@link
 * dev.offcache.core.slab.BlockSlab#isSlotSize}) lives here.
 */
package dev.offcache.core.slab;
