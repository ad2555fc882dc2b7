// The held-responses client in C (bench/held.ts, bench/streams.ts): the same
// job as bench/drip-client.ts, with timestamps a node event loop cannot give.
// At 2000 held /slow responses or 5000 /drip streams, node's own loop delay
// (p99 12–35 ms) is above the bounds the benchmark judges (10 ms, 18 ms); this
// client is one thread on epoll, takes a CLOCK_MONOTONIC timestamp per socket
// event, and wakes for its deadlines with a nanosecond timeout (epoll_pwait2,
// timer slack 1 ns), so its timestamps are late by microseconds on a quiet core.
//
// Build: cc -O2 -Wall -Wextra -std=c11 -D_GNU_SOURCE -o held-client held-client.c
// (Linux ≥ 5.11, glibc ≥ 2.35; libc only). `make bench` puts it in dist/bench/.
//
// Usage: held-client --port N [--host H] [--streams N] [--path P] [--ramp-ms N]
//                    [--timeout-ms N] [--connect-per-request] [--wait-stdin-eof]
//                    [--chunk-bytes N --interval-ms N] [--sources N] [--keep-open]
//   --port                the server's loopback port (127.0.0.1), required
//   --host                Host header (default 127.0.0.1:<port>)
//   --streams             number of requests, one connection each (default 100)
//   --path                path and query of each request (default /)
//   --ramp-ms             requests go out evenly over this long (default 0: at once)
//   --timeout-ms          a stream not complete this long after its request, or a
//                         connect not done this long after it began, fails as
//                         'timeout' (default 10000)
//   --connect-per-request each socket connects when its request is due and sends on
//                         connect (one phase); otherwise every socket connects
//                         first, then the requests go out over the ramp
//   --wait-stdin-eof      after the result line, stay until stdin closes (the parent
//                         reads this process's /proc entries, e.g. its run-queue wait)
//   --chunk-bytes, --interval-ms  the body is a chunk of N bytes every interval: each
//                         chunk's arrival is judged against first byte + k × interval
//                         (the result's "chunks": count, within 10 ms, p50/p99/max)
//   --sources             connect from 127.0.0.1 … 127.0.0.N in turn (N ≤ 254): more than
//                         one address's ephemeral ports (about 28,000 each) for 50,000 sockets
//   --keep-open           a complete response's socket stays open (an idle keep-alive
//                         connection) until stdin closes; with --wait-stdin-eof, a last
//                         line {"type":"kept","open":N,"closedByServer":N} says how many
//                         the server closed meanwhile
// At most 200 handshakes are in flight at once in either mode (well under a
// server's listen backlog, so none overflows into SYN retries).
//
// Output on stdout, one JSON object a line, the messages of drip-client.ts
// (DripClientPhase, DripClientResult):
//   {"type":"phase","phase":"connected"}   every socket connected (connect-first only)
//   {"type":"phase","phase":"requested"}   the ramp is over (last request sent / last socket opened)
//   {"type":"result","timings":[{"firstAtMs":…,"firstByteMs":…,"spanMs":…},…],"failed":N,
//    "failures":{"timeout":N,…},"maxInFlight":N,"connectMs":…,"rampActualMs":…,
//    "clientLoopDelayP99Ms":…,"clientLoopDelayMaxMs":…,"rampStartNs":…}
// firstAtMs: first response byte, from the start of the ramp; firstByteMs: request
// written → first response byte; spanMs: first response byte → last body byte
// (Content-Length). Failures by reason: 'timeout', 'closed early' (EOF before the
// body ended), 'status NNN' (not 200; 'status ?' when the status line is not
// HTTP/1.x), 'no content-length', 'head too large', or an errno name (ECONNRESET…).
// clientLoopDelay*: this client's own lateness, from the start of the ramp: each
// time the loop wakes for a deadline it set (the next request due, a timeout, or
// a 1 ms heartbeat), how long after that deadline it got to run. A timestamp of
// this client is late by at most about that much. rampStartNs: CLOCK_MONOTONIC at
// the start of the ramp (bench/held-gc.ts lines a server's own log up with it).
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/** Handshakes in progress at once: well under a server's listen backlog (511). */
#define CONNECTS_AT_ONCE 200
/** The loop wakes at least this often, so its own lateness is sampled all through the run. */
#define HEARTBEAT_NS 1000000LL
/** A response head longer than this is a failure (the heads here are a few hundred bytes). */
#define HEAD_MAX 65536
#define EVENTS_AT_ONCE 1024
#define REASONS_MAX 64

enum state { IDLE, CONNECTING, CONNECTED, WRITING, WAITING, DONE };

struct stream {
  int fd;
  enum state state;
  int64_t connect_at;
  int64_t sent_at;
  int64_t first_at;
  /** Bytes of the request written so far. */
  uint32_t written;
  /** Head bytes read so far, until its end is found (then freed). */
  char *head;
  uint32_t head_len;
  uint32_t head_cap;
  int64_t body_expected;
  int64_t body_seen;
  /** The next chunk whose first byte has not arrived (--chunk-bytes). */
  uint32_t next_chunk;
};

struct timing {
  int64_t first_at;
  int64_t first_byte;
  int64_t span;
};

struct reason {
  char name[40];
  int count;
};

/** Stream indices in the order their deadlines were set: every timeout is the same length, so the oldest is due first. */
struct fifo {
  uint32_t *items;
  uint32_t head;
  uint32_t tail;
};

static struct {
  int port;
  const char *host;
  uint32_t streams;
  const char *path;
  int64_t ramp_ns;
  int64_t timeout_ns;
  bool connect_per_request;
  bool wait_stdin_eof;
  int64_t chunk_bytes;
  int64_t interval_ns;
  uint32_t sources;
  bool keep_open;
} opt = { .port = 0, .host = NULL, .streams = 100, .path = "/", .ramp_ns = 0, .timeout_ns = 10000LL * 1000000LL, .sources = 1 };

static struct stream *streams;
static struct timing *timings;
static uint32_t completed;
static struct reason reasons[REASONS_MAX];
static int reason_count;
static char *request;
static size_t request_len;
static struct sockaddr_in server;
static int epoll_fd;

static uint32_t opened;
static uint32_t settled;
static uint32_t handshakes;
static uint32_t in_flight;
static uint32_t max_in_flight;

/** Connect-first: the sockets that connected, in order; the ramp sends to them. */
static uint32_t *connected;
static uint32_t connected_count;
static uint32_t sent_count;
static bool connect_phase_over;

static bool ramp_started;
static bool ramp_over;
static int64_t connect_start;
static int64_t ramp_start;
static int64_t ramp_end;
static int64_t next_heartbeat;

static struct fifo connect_timeouts;
static struct fifo response_timeouts;

/** A growing list of nanosecond figures (the loop's own lateness; each chunk's). */
struct samples {
  int64_t *items;
  size_t count;
  size_t cap;
};

static struct samples delays;
static struct samples chunk_lateness;
/** Sockets of complete responses left open (--keep-open). */
static int *kept;
static uint32_t kept_count;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *must_alloc(size_t count, size_t size) {
  void *memory = calloc(count == 0 ? 1 : count, size);
  if (!memory) {
    fprintf(stderr, "held-client: out of memory\n");
    exit(1);
  }
  return memory;
}

static void record(struct samples *list, int64_t ns) {
  if (list->count == list->cap) {
    list->cap = list->cap ? list->cap * 2 : 65536;
    list->items = realloc(list->items, list->cap * sizeof *list->items);
    if (!list->items) {
      fprintf(stderr, "held-client: out of memory\n");
      exit(1);
    }
  }
  list->items[list->count++] = ns;
}

/** Body bytes [from, to) arrived at `now`: each chunk that starts among them is judged against its schedule. */
static void note_body(struct stream *s, int64_t from, int64_t to, int64_t now) {
  if (opt.chunk_bytes <= 0) return;
  for (;;) {
    int64_t start = (int64_t)s->next_chunk * opt.chunk_bytes;
    if (start >= to || (s->body_expected >= 0 && start >= s->body_expected)) return;
    if (start >= from) record(&chunk_lateness, now - (s->first_at + (int64_t)s->next_chunk * opt.interval_ns));
    s->next_chunk++;
  }
}

static void count_failure(const char *name) {
  for (int i = 0; i < reason_count; i++) {
    if (strcmp(reasons[i].name, name) == 0) {
      reasons[i].count++;
      return;
    }
  }
  // The last slot gathers every reason past the first REASONS_MAX - 1 (there are a handful in practice).
  if (reason_count == REASONS_MAX - 1) name = "other";
  if (reason_count == REASONS_MAX) {
    reasons[REASONS_MAX - 1].count++;
    return;
  }
  snprintf(reasons[reason_count].name, sizeof reasons[reason_count].name, "%s", name);
  reasons[reason_count++].count = 1;
}

/** ECONNRESET rather than "Connection reset by peer": the names drip-client reports (node's error.code). */
static const char *errno_name(int error) {
  const char *name = strerrorname_np(error);
  static char unknown[24];
  if (name) return name;
  snprintf(unknown, sizeof unknown, "errno %d", error);
  return unknown;
}

static void phase(const char *name) {
  printf("{\"type\":\"phase\",\"phase\":\"%s\"}\n", name);
  fflush(stdout);
}

static void settle(uint32_t index, const char *failure, int64_t now) {
  struct stream *s = &streams[index];
  if (s->state == DONE) return;
  if (s->state == CONNECTING) handshakes--;
  if (s->first_at > 0) in_flight--;
  s->state = DONE;
  if (s->fd >= 0 && !failure && opt.keep_open) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, s->fd, NULL);
    kept[kept_count++] = s->fd;
  } else if (s->fd >= 0) {
    close(s->fd);
  }
  s->fd = -1;
  free(s->head);
  s->head = NULL;
  if (failure) {
    count_failure(failure);
  } else {
    timings[completed++] = (struct timing){ s->first_at - ramp_start, s->first_at - s->sent_at, now - s->first_at };
  }
  settled++;
}

static void fifo_push(struct fifo *q, uint32_t index) { q->items[q->tail++] = index; }

/** Writes what is left of the request; the rest waits for EPOLLOUT. */
static void write_request(uint32_t index, int64_t now) {
  struct stream *s = &streams[index];
  while (s->written < request_len) {
    ssize_t n = send(s->fd, request + s->written, request_len - s->written, MSG_NOSIGNAL);
    if (n > 0) {
      s->written += (uint32_t)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      s->state = WRITING;
      return;
    } else {
      settle(index, errno_name(n < 0 ? errno : EPIPE), now);
      return;
    }
  }
  s->state = WAITING;
}

static void send_request(uint32_t index) {
  struct stream *s = &streams[index];
  if (s->state != CONNECTED) return;
  s->sent_at = now_ns();
  fifo_push(&response_timeouts, index);
  write_request(index, s->sent_at);
}

static void on_connected(uint32_t index) {
  struct stream *s = &streams[index];
  handshakes--;
  s->state = CONNECTED;
  if (opt.connect_per_request) send_request(index);
  else connected[connected_count++] = index;
}

static void open_stream(uint32_t index) {
  struct stream *s = &streams[index];
  int64_t now = now_ns();
  s->connect_at = now;
  s->state = CONNECTING;
  handshakes++;
  s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s->fd < 0) {
    settle(index, errno_name(errno), now);
    return;
  }
  int one = 1;
  setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (opt.sources > 1) {
    struct sockaddr_in source = { .sin_family = AF_INET, .sin_port = 0 };
    source.sin_addr.s_addr = htonl(INADDR_LOOPBACK + index % opt.sources);
    // The port is chosen at connect, for the whole 4-tuple: bind's own search wants a port no other socket
    // holds, which past about half the range scans every port in use on each call (seconds at 19,000).
    setsockopt(s->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    if (bind(s->fd, (struct sockaddr *)&source, sizeof source) < 0) {
      settle(index, errno_name(errno), now);
      return;
    }
  }
  // Edge-triggered: each read drains the socket, and no epoll_ctl call is needed between connecting and reading.
  struct epoll_event event = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u32 = index };
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, s->fd, &event) < 0) {
    settle(index, errno_name(errno), now);
    return;
  }
  fifo_push(&connect_timeouts, index);
  if (connect(s->fd, (struct sockaddr *)&server, sizeof server) == 0) {
    on_connected(index);
  } else if (errno != EINPROGRESS) {
    settle(index, errno_name(errno), now);
  }
}

/**
 * Looks for the end of the head (from `from`, the length before the last read,
 * less 3: CRLFCRLF may straddle two reads), then checks the status and reads
 * Content-Length; false when the stream settled.
 */
static bool parse_head(uint32_t index, uint32_t from, int64_t now) {
  struct stream *s = &streams[index];
  uint32_t end = 0;
  bool found = false;
  for (uint32_t i = from > 3 ? from - 3 : 0; i + 3 < s->head_len; i++) {
    if (s->head[i] == '\r' && s->head[i + 1] == '\n' && s->head[i + 2] == '\r' && s->head[i + 3] == '\n') {
      end = i;
      found = true;
      break;
    }
  }
  if (!found) {
    if (s->head_len > HEAD_MAX) {
      settle(index, "head too large", now);
      return false;
    }
    return true;
  }
  const char *h = s->head;
  char failure[32];
  if (end < 12 || strncmp(h, "HTTP/1.", 7) != 0 || h[8] != ' ' || h[9] < '0' || h[9] > '9' || h[10] < '0' || h[10] > '9' || h[11] < '0' ||
      h[11] > '9' || (h[12] != ' ' && h[12] != '\r')) {
    settle(index, "status ?", now);
    return false;
  }
  if (strncmp(h + 9, "200", 3) != 0) {
    snprintf(failure, sizeof failure, "status %.3s", h + 9);
    settle(index, failure, now);
    return false;
  }
  int64_t length = -1;
  for (uint32_t line = 0; line < end;) {
    const char *eol = memchr(h + line, '\n', end - line);
    uint32_t next = eol ? (uint32_t)(eol - h) + 1 : end;
    if (line > 0 && next - line >= 15 && strncasecmp(h + line, "content-length:", 15) == 0) {
      uint32_t i = line + 15;
      while (i < end && (h[i] == ' ' || h[i] == '\t')) i++;
      if (i < end && h[i] >= '0' && h[i] <= '9') {
        length = 0;
        while (i < end && h[i] >= '0' && h[i] <= '9' && length < (INT64_MAX - 9) / 10) length = length * 10 + (h[i++] - '0');
      }
      break;
    }
    line = next;
  }
  if (length < 0) {
    settle(index, "no content-length", now);
    return false;
  }
  s->body_expected = length;
  s->body_seen = (int64_t)s->head_len - end - 4;
  note_body(s, 0, s->body_seen, now);
  free(s->head);
  s->head = NULL;
  s->head_len = s->head_cap = 0;
  return true;
}

static char read_buffer[65536];

/** Reads until the socket would block (edge-triggered), counting head and body bytes; `now` is when the event arrived. */
static void read_stream(uint32_t index, int64_t now) {
  struct stream *s = &streams[index];
  for (;;) {
    ssize_t n = recv(s->fd, read_buffer, sizeof read_buffer, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      settle(index, errno_name(errno), now);
      return;
    }
    if (n == 0) {
      settle(index, "closed early", now);
      return;
    }
    if (s->first_at == 0) {
      s->first_at = now;
      if (++in_flight > max_in_flight) max_in_flight = in_flight;
    }
    if (s->body_expected < 0) {
      if (s->head_len + (uint32_t)n > s->head_cap) {
        uint32_t cap = s->head_cap ? s->head_cap : 1024;
        while (cap < s->head_len + (uint32_t)n) cap *= 2;
        char *grown = realloc(s->head, cap);
        if (!grown) {
          settle(index, "out of memory", now);
          return;
        }
        s->head = grown;
        s->head_cap = cap;
      }
      uint32_t before = s->head_len;
      memcpy(s->head + s->head_len, read_buffer, (size_t)n);
      s->head_len += (uint32_t)n;
      if (!parse_head(index, before, now)) return;
    } else {
      note_body(s, s->body_seen, s->body_seen + n, now);
      s->body_seen += n;
    }
    if (s->body_expected >= 0 && s->body_seen >= s->body_expected) {
      settle(index, NULL, now);
      return;
    }
  }
}

static void on_event(uint32_t index, uint32_t events) {
  struct stream *s = &streams[index];
  int64_t now = now_ns();
  if (s->state == DONE) return;
  if (s->state == CONNECTING) {
    if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &error, &size) < 0) error = errno;
    if (error) {
      settle(index, errno_name(error), now);
      return;
    }
    if (events & EPOLLHUP) {
      settle(index, "closed early", now);
      return;
    }
    on_connected(index);
    if (s->state == DONE) return;
  }
  if (s->state == WRITING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
    write_request(index, now);
    if (s->state == DONE) return;
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    read_stream(index, now);
    if (s->state == DONE || !(events & EPOLLERR)) return;
    // An error with nothing left to read: the pending error names it.
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &error, &size);
    settle(index, error ? errno_name(error) : "closed early", now);
  }
}

/** When the i-th of `total` requests is due: evenly over the ramp, the first at its start. */
static int64_t due_at(uint32_t i, uint32_t total) {
  return total == 0 ? ramp_start : ramp_start + (int64_t)((__int128)i * opt.ramp_ns / total);
}

static void start_ramp(int64_t now) {
  ramp_started = true;
  ramp_start = now;
  next_heartbeat = now + HEARTBEAT_NS;
}

static void end_ramp(void) {
  ramp_over = true;
  ramp_end = now_ns();
  phase("requested");
}

/** Everything that is due by now: connects, sends, timeouts, the heartbeat. */
static void pump(int64_t now) {
  if (opt.connect_per_request) {
    if (!ramp_over) {
      while (opened < opt.streams && handshakes < CONNECTS_AT_ONCE && due_at(opened, opt.streams) <= now) open_stream(opened++);
      if (opened == opt.streams) end_ramp();
    }
  } else if (!connect_phase_over) {
    while (opened < opt.streams && handshakes < CONNECTS_AT_ONCE) open_stream(opened++);
    if (opened == opt.streams && handshakes == 0) {
      connect_phase_over = true;
      phase("connected");
      start_ramp(now_ns());
    }
  }
  if (!opt.connect_per_request && connect_phase_over && !ramp_over) {
    while (sent_count < connected_count && due_at(sent_count, connected_count) <= now) send_request(connected[sent_count++]);
    if (sent_count == connected_count) end_ramp();
  }
  while (connect_timeouts.head < connect_timeouts.tail) {
    uint32_t index = connect_timeouts.items[connect_timeouts.head];
    if (streams[index].state != CONNECTING) {
      connect_timeouts.head++;
    } else if (streams[index].connect_at + opt.timeout_ns <= now) {
      connect_timeouts.head++;
      settle(index, "timeout", now);
    } else {
      break;
    }
  }
  while (response_timeouts.head < response_timeouts.tail) {
    uint32_t index = response_timeouts.items[response_timeouts.head];
    if (streams[index].state == DONE) {
      response_timeouts.head++;
    } else if (streams[index].sent_at + opt.timeout_ns <= now) {
      response_timeouts.head++;
      settle(index, "timeout", now);
    } else {
      break;
    }
  }
  if (ramp_started) {
    while (next_heartbeat <= now) next_heartbeat += HEARTBEAT_NS;
  }
}

/** The earliest moment something is due; INT64_MAX when only socket events can move things on. */
static int64_t next_deadline(void) {
  int64_t deadline = INT64_MAX;
  if (ramp_started) deadline = next_heartbeat;
  if (opt.connect_per_request && !ramp_over && handshakes < CONNECTS_AT_ONCE && opened < opt.streams) {
    int64_t due = due_at(opened, opt.streams);
    if (due < deadline) deadline = due;
  }
  if (!opt.connect_per_request && connect_phase_over && !ramp_over && sent_count < connected_count) {
    int64_t due = due_at(sent_count, connected_count);
    if (due < deadline) deadline = due;
  }
  for (uint32_t i = connect_timeouts.head; i < connect_timeouts.tail; i++) {
    const struct stream *s = &streams[connect_timeouts.items[i]];
    if (s->state != CONNECTING) continue;
    if (s->connect_at + opt.timeout_ns < deadline) deadline = s->connect_at + opt.timeout_ns;
    break;
  }
  for (uint32_t i = response_timeouts.head; i < response_timeouts.tail; i++) {
    const struct stream *s = &streams[response_timeouts.items[i]];
    if (s->state == DONE) continue;
    if (s->sent_at + opt.timeout_ns < deadline) deadline = s->sent_at + opt.timeout_ns;
    break;
  }
  return deadline;
}

static int compare_ns(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

/** Nearest rank, as bench/lib.ts quantile(), of a sorted list; 0 when empty. */
static int64_t rank_of(const struct samples *sorted, double q) {
  if (sorted->count == 0) return 0;
  size_t rank = (size_t)((double)sorted->count * q + 0.999999999);
  if (rank < 1) rank = 1;
  if (rank > sorted->count) rank = sorted->count;
  return sorted->items[rank - 1];
}

static void print_result(void) {
  qsort(delays.items, delays.count, sizeof *delays.items, compare_ns);
  double p99 = ms(rank_of(&delays, 0.99)), max = ms(rank_of(&delays, 1));
  printf("{\"type\":\"result\",\"timings\":[");
  for (uint32_t i = 0; i < completed; i++) {
    printf("%s{\"firstAtMs\":%.3f,\"firstByteMs\":%.3f,\"spanMs\":%.3f}", i ? "," : "", ms(timings[i].first_at), ms(timings[i].first_byte),
           ms(timings[i].span));
  }
  printf("],\"failed\":%u,\"failures\":{", opt.streams - completed);
  for (int i = 0; i < reason_count; i++) printf("%s\"%s\":%d", i ? "," : "", reasons[i].name, reasons[i].count);
  printf("},\"maxInFlight\":%u,\"connectMs\":%.3f,\"rampActualMs\":%.3f,\"clientLoopDelayP99Ms\":%.3f,\"clientLoopDelayMaxMs\":%.3f,\"rampStartNs\":%lld",
         max_in_flight, ms(ramp_start - connect_start), ms(ramp_end - ramp_start), p99, max, (long long)ramp_start);
  if (opt.chunk_bytes > 0) {
    qsort(chunk_lateness.items, chunk_lateness.count, sizeof *chunk_lateness.items, compare_ns);
    size_t within = 0;
    for (size_t i = 0; i < chunk_lateness.count; i++) within += chunk_lateness.items[i] <= 10000000LL;
    printf(",\"chunks\":{\"count\":%zu,\"within10Ms\":%zu,\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"maxMs\":%.3f}", chunk_lateness.count, within,
           ms(rank_of(&chunk_lateness, 0.5)), ms(rank_of(&chunk_lateness, 0.99)), ms(rank_of(&chunk_lateness, 1)));
  }
  printf("}\n");
  fflush(stdout);
}

static long integer_arg(const char *name, const char *value, long min) {
  char *end;
  errno = 0;
  long n = strtol(value, &end, 10);
  if (errno || *end || n < min) {
    fprintf(stderr, "held-client: --%s must be an integer ≥ %ld, got %s\n", name, min, value);
    exit(2);
  }
  return n;
}

static void parse_args(int argc, char **argv) {
  static const struct option options[] = {
    { "port", required_argument, NULL, 'p' },       { "host", required_argument, NULL, 'H' },
    { "streams", required_argument, NULL, 'n' },    { "path", required_argument, NULL, 'P' },
    { "ramp-ms", required_argument, NULL, 'r' },    { "timeout-ms", required_argument, NULL, 't' },
    { "connect-per-request", no_argument, NULL, 'c' }, { "wait-stdin-eof", no_argument, NULL, 'w' },
    { "chunk-bytes", required_argument, NULL, 'b' }, { "interval-ms", required_argument, NULL, 'i' },
    { "sources", required_argument, NULL, 's' },    { "keep-open", no_argument, NULL, 'k' },
    { NULL, 0, NULL, 0 },
  };
  int c;
  while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
    switch (c) {
      case 'p': opt.port = (int)integer_arg("port", optarg, 1); break;
      case 'H': opt.host = optarg; break;
      case 'n': opt.streams = (uint32_t)integer_arg("streams", optarg, 1); break;
      case 'P': opt.path = optarg; break;
      case 'r': opt.ramp_ns = integer_arg("ramp-ms", optarg, 0) * 1000000LL; break;
      case 't': opt.timeout_ns = integer_arg("timeout-ms", optarg, 1) * 1000000LL; break;
      case 'c': opt.connect_per_request = true; break;
      case 'w': opt.wait_stdin_eof = true; break;
      case 'b': opt.chunk_bytes = integer_arg("chunk-bytes", optarg, 1); break;
      case 'i': opt.interval_ns = integer_arg("interval-ms", optarg, 0) * 1000000LL; break;
      case 's': opt.sources = (uint32_t)integer_arg("sources", optarg, 1); break;
      case 'k': opt.keep_open = true; break;
      default:
        fprintf(stderr, "usage: held-client --port N [--host H] [--streams N] [--path P] [--ramp-ms N] [--timeout-ms N] [--connect-per-request] [--wait-stdin-eof] [--chunk-bytes N --interval-ms N] [--sources N] [--keep-open]\n");
        exit(2);
    }
  }
  if (opt.port <= 0 || opt.port > 65535) {
    fprintf(stderr, "held-client: --port (1..65535) is required\n");
    exit(2);
  }
  if (opt.sources > 254) {
    fprintf(stderr, "held-client: --sources must be at most 254 (127.0.0.1 … 127.0.0.254)\n");
    exit(2);
  }
}

/** One descriptor per stream and a few of our own: the soft limit goes up to the hard one when it must. */
static void raise_open_files(void) {
  struct rlimit limit;
  rlim_t need = (rlim_t)opt.streams + 16;
  if (getrlimit(RLIMIT_NOFILE, &limit) < 0 || limit.rlim_cur >= need) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < need) {
    fprintf(stderr, "held-client: open-files hard limit %llu is below %llu: some streams will fail (EMFILE)\n", (unsigned long long)limit.rlim_cur,
            (unsigned long long)need);
  }
}

int main(int argc, char **argv) {
  parse_args(argc, argv);
  raise_open_files();
  // Wake-ups as close to the deadline as the kernel allows (the default slack is 50 µs).
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

  char default_host[32];
  if (!opt.host) {
    snprintf(default_host, sizeof default_host, "127.0.0.1:%d", opt.port);
    opt.host = default_host;
  }
  request_len = (size_t)snprintf(NULL, 0, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", opt.path, opt.host);
  request = must_alloc(request_len + 1, 1);
  snprintf(request, request_len + 1, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", opt.path, opt.host);

  server.sin_family = AF_INET;
  server.sin_port = htons((uint16_t)opt.port);
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

  streams = must_alloc(opt.streams, sizeof *streams);
  for (uint32_t i = 0; i < opt.streams; i++) {
    streams[i].fd = -1;
    streams[i].body_expected = -1;
  }
  timings = must_alloc(opt.streams, sizeof *timings);
  connected = must_alloc(opt.streams, sizeof *connected);
  connect_timeouts.items = must_alloc(opt.streams, sizeof *connect_timeouts.items);
  response_timeouts.items = must_alloc(opt.streams, sizeof *response_timeouts.items);
  if (opt.keep_open) kept = must_alloc(opt.streams, sizeof *kept);

  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) {
    perror("held-client: epoll_create1");
    return 1;
  }
  struct epoll_event events[EVENTS_AT_ONCE];

  connect_start = now_ns();
  if (opt.connect_per_request) start_ramp(connect_start);
  pump(now_ns());
  while (settled < opt.streams) {
    int64_t deadline = next_deadline();
    int64_t before = now_ns();
    struct timespec timeout = { 0, 0 };
    if (deadline > before && deadline != INT64_MAX) timeout = (struct timespec){ (deadline - before) / 1000000000LL, (deadline - before) % 1000000000LL };
    int n = epoll_pwait2(epoll_fd, events, EVENTS_AT_ONCE, deadline == INT64_MAX ? NULL : &timeout, NULL);
    if (n < 0 && errno != EINTR) {
      perror("held-client: epoll_pwait2");
      return 1;
    }
    int64_t now = now_ns();
    // The loop's own lateness: how long after the deadline it slept for it got to run again.
    if (ramp_started && deadline != INT64_MAX && now >= deadline) record(&delays, now - deadline);
    pump(now);
    for (int i = 0; i < n; i++) on_event(events[i].data.u32, events[i].events);
    // Connects that completed may let due ones start now, not at the next wake-up.
    pump(now_ns());
  }
  if (!ramp_over) {
    if (!ramp_started) start_ramp(now_ns());
    end_ramp();
  }
  print_result();

  if (opt.wait_stdin_eof) {
    char sink[256];
    for (;;) {
      ssize_t n = read(STDIN_FILENO, sink, sizeof sink);
      if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
    if (opt.keep_open) {
      // A socket the server closed meanwhile reads end-of-file (or an error) without waiting.
      uint32_t closed = 0;
      for (uint32_t i = 0; i < kept_count; i++) {
        char byte;
        ssize_t n = recv(kept[i], &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) closed++;
      }
      printf("{\"type\":\"kept\",\"open\":%u,\"closedByServer\":%u}\n", kept_count - closed, closed);
      fflush(stdout);
    }
  }
  return 0;
}
