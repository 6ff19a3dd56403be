/**
 * Server-wide metrics that belong to no one component: the build information gauge.
 */
package dev.offcache.server.metrics;
