/*
 * The floor for the L2-vs-nginx comparison: the least a server can do per Range GET over HTTP/1.1 keep-alive on
 * Linux, with no cache, no checks and no allocation. One epoll loop per thread (SO_REUSEPORT listeners), one read per
 * request, the 206 headers built by one snprintf, and the body sent either from memory (writev of headers + body, as
 * the L2 server's RAM tier does) or with sendfile from the file (headers sent with MSG_MORE first, as nginx's
 * tcp_nopush does). It answers only what the comparison's wrk script sends: GET with "Range: bytes=A-B"; any other
 * request gets an empty 200 (curl's readiness probe). Not a server to use: a measuring stick for what the kernel and
 * wrk cost on this machine, so that a ratio against nginx can be told apart from what no server could reach.
 *
 * Build: gcc -O2 -o floor-server floor-server.c    Run: floor-server PORT FILE memory|sendfile THREADS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <unistd.h>

#define IN_BYTES 8192
#define HEAD_BYTES 256

struct conn {
    int fd;
    char in[IN_BYTES];
    size_t in_len;
    char head[HEAD_BYTES];
    size_t head_len, head_sent;
    off_t body_pos;   /* next byte of the file to send */
    size_t body_left; /* body bytes not yet sent */
};

static int port, use_sendfile, file_fd;
static const char *body; /* the whole file in memory (memory mode) */
static off_t file_size;

static void die(const char *what) { perror(what); exit(1); }

/* Sends what is pending; returns 1 when the response is complete, 0 when the socket is full, -1 on error. */
static int flush(struct conn *c)
{
    while (c->head_sent < c->head_len || c->body_left > 0) {
        ssize_t n;
        if (!use_sendfile) {
            struct iovec iov[2];
            int k = 0;
            if (c->head_sent < c->head_len) {
                iov[k].iov_base = c->head + c->head_sent;
                iov[k++].iov_len = c->head_len - c->head_sent;
            }
            if (c->body_left > 0) {
                iov[k].iov_base = (char *)body + c->body_pos;
                iov[k++].iov_len = c->body_left;
            }
            n = writev(c->fd, iov, k);
            if (n > 0) {
                size_t h = c->head_len - c->head_sent;
                size_t from_head = (size_t)n < h ? (size_t)n : h;
                c->head_sent += from_head;
                c->body_pos += n - from_head;
                c->body_left -= n - from_head;
            }
        } else if (c->head_sent < c->head_len) {
            n = send(c->fd, c->head + c->head_sent, c->head_len - c->head_sent, c->body_left > 0 ? MSG_MORE : 0);
            if (n > 0) c->head_sent += n;
        } else {
            n = sendfile(c->fd, file_fd, &c->body_pos, c->body_left);
            if (n > 0) c->body_left -= n;
        }
        if (n < 0) return errno == EAGAIN ? 0 : -1;
        if (n == 0) return -1;
    }
    return 1;
}

/* Parses one complete request at the start of c->in and prepares its response; returns its length, 0 if incomplete. */
static size_t parse(struct conn *c)
{
    c->in[c->in_len] = 0;
    char *end = strstr(c->in, "\r\n\r\n");
    if (!end) return 0;
    size_t used = end + 4 - c->in;
    long long a = -1, b = -1;
    for (char *line = strstr(c->in, "\r\n"); line && line < end; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, "Range: bytes=", 13) == 0) {
            sscanf(line + 15, "%lld-%lld", &a, &b);
            break;
        }
    }
    if (a >= 0 && b >= a && b < file_size) {
        c->head_len = snprintf(c->head, HEAD_BYTES,
            "HTTP/1.1 206 Partial Content\r\nContent-Type: application/octet-stream\r\nContent-Length: %lld\r\n"
            "Content-Range: bytes %lld-%lld/%lld\r\n\r\n", b - a + 1, a, b, (long long)file_size);
        c->body_pos = a;
        c->body_left = b - a + 1;
    } else {
        c->head_len = snprintf(c->head, HEAD_BYTES, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        c->body_left = 0;
    }
    c->head_sent = 0;
    return used;
}

static void *loop(void *arg)
{
    (void)arg;
    int one = 1;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (lfd < 0) die("socket");
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(lfd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port) };
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
    if (listen(lfd, 1024) < 0) die("listen");
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    struct epoll_event events[64];
    for (;;) {
        int n = epoll_wait(ep, events, 64, -1);
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    c = calloc(1, sizeof *c);
                    c->fd = fd;
                    struct epoll_event cev = { .events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = c };
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                }
                continue;
            }
            int failed = 0;
            for (;;) {
                /* finish the response in progress before reading the next request */
                if (c->head_sent < c->head_len || c->body_left > 0) {
                    int r = flush(c);
                    if (r < 0) { failed = 1; break; }
                    if (r == 0) break;
                }
                size_t used = parse(c);
                if (used) {
                    memmove(c->in, c->in + used, c->in_len - used);
                    c->in_len -= used;
                    continue;
                }
                if (c->in_len >= IN_BYTES - 1) { failed = 1; break; }
                ssize_t r = read(c->fd, c->in + c->in_len, IN_BYTES - 1 - c->in_len);
                if (r > 0) { c->in_len += r; continue; }
                if (r < 0 && errno == EAGAIN) break;
                failed = 1;
                break;
            }
            if (failed) { close(c->fd); free(c); }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: %s PORT FILE memory|sendfile THREADS\n", argv[0]); return 2; }
    signal(SIGPIPE, SIG_IGN); /* wrk closes its connections mid-response when a run ends */
    port = atoi(argv[1]);
    use_sendfile = strcmp(argv[3], "sendfile") == 0;
    file_fd = open(argv[2], O_RDONLY);
    if (file_fd < 0) die(argv[2]);
    struct stat st;
    if (fstat(file_fd, &st) < 0) die("fstat");
    file_size = st.st_size;
    if (!use_sendfile) {
        char *copy = malloc(file_size);
        if (!copy) die("malloc");
        for (off_t done = 0; done < file_size;) {
            ssize_t r = pread(file_fd, copy + done, file_size - done, done);
            if (r <= 0) die("pread");
            done += r;
        }
        body = copy;
    }
    int threads = atoi(argv[4]);
    pthread_t t[64];
    for (int i = 0; i < threads && i < 64; i++) pthread_create(&t[i], NULL, loop, NULL);
    fprintf(stderr, "floor-server on 127.0.0.1:%d, %s, %d threads\n", port, argv[3], threads);
    pthread_join(t[0], NULL);
    return 0;
}
