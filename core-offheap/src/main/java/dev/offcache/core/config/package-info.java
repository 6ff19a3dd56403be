/**
 * The contexts' conclude-once rule: a {@code Context} is concluded by one component, once.
 */
package dev.offcache.core.config;
