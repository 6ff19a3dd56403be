/**
 * The Aeron plumbing the client and server share: media drivers, channels, agent hosts and idle strategies, and the
 * common {@code Context} base.
 */
package dev.offcache.transport.media;
