/* afalg-bench: one request at a time through the kernel's AF_ALG interface, bound to a named
 * driver (sha256-qce, sha256-ce, cbc-aes-qce, ...), as the seed measurement was taken: wall time,
 * the process's CPU time, and the system-wide hardirq/softirq time and interrupt counts as deltas
 * of /proc/stat and /proc/interrupts around the loop, and every CPU's cpuidle state entries and
 * residency (sysfs) around it too: how often the waiting CPUs slept how deep.
 *
 * Part of the qcesim board kit (board/qcesim-measure runs it). Plain C99 + Linux uapi, built
 * statically for arm64 and armhf; prints "key value" lines that `qcesim ingest` reads. Exit status:
 * 0 measured, 2 bad arguments, 3 the driver is not registered (ENOENT from bind), 1 anything else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_alg.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define BENCH_FORMAT 1
#define MAX_BYTES (1u << 20)
#define MAX_CIPHER_BYTES (64u << 10) /* one sendmsg below the socket's send buffer: nothing reads until it is sent */
#define MAX_IRQ_ROWS 512
#define MAX_IDLE_ROWS 1024

struct opts {
  const char *type, *alg, *driver, *check, *send;
  unsigned long bytes, count, key_bytes;
  double time_limit;
  int cpu;
};

static void usage(void) {
  fprintf(stderr,
          "usage: afalg-bench -t hash|skcipher -d DRIVER -b BYTES -n COUNT [-a ALG] [-k KEYBYTES]\n"
          "                   [-c REFERENCE_DRIVER] [-T SECONDS] [-C CPU] [-m whole|more]\n"
          "  -d  the driver to bind (cra_driver_name in /proc/crypto), e.g. sha256-qce\n"
          "  -b  message bytes (1..%u; skcipher: a multiple of 16 up to 65536)\n"
          "  -n  messages, one request at a time\n"
          "  -a  the algorithm's name, printed for the record (e.g. sha256)\n"
          "  -k  key bytes: hmac(...) and skcipher (default 16 for skcipher)\n"
          "  -c  compute the first message with this driver too and compare\n"
          "  -T  stop after this many seconds even if COUNT is not reached\n"
          "  -C  run on this CPU (sched_setaffinity)\n"
          "  -m  hash: how each message is sent: whole (default: one send; one digest from kernel\n"
          "      6.5, init/update/final before) or more (send with MSG_MORE, the read finalises:\n"
          "      init/update/final on every kernel)\n",
          MAX_BYTES);
}

static int parse_ulong(const char* s, unsigned long* out) {
  char* end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-') return -1;
  *out = v;
  return 0;
}

static double now_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Deterministic bytes (xorshift64), the same for the driver and its reference. */
static void fill(unsigned char* p, unsigned long n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (unsigned long i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p[i] = (unsigned char)(x >> 24);
  }
}

/* The "cpu " line of /proc/stat, verbatim. */
static void read_stat(char* line, size_t n) {
  line[0] = 0;
  FILE* f = fopen("/proc/stat", "r");
  if (!f) return;
  if (fgets(line, (int)n, f)) line[strcspn(line, "\n")] = 0;
  fclose(f);
  if (strncmp(line, "cpu ", 4) != 0) line[0] = 0;
}

#define MAX_IRQ_CPUS 64

struct irq_row {
  char label[32];
  unsigned long long total;
  unsigned long long per_cpu[MAX_IRQ_CPUS]; /* the first MAX_IRQ_CPUS CPUs' columns */
  char name[96];
};

/* Every /proc/interrupts row: its label, the sum over CPUs, each column's count, and the rest of
 * the line. The header's CPUn names the columns (only online CPUs have one): col_cpu[c] is
 * column c's CPU number, for the first MAX_IRQ_CPUS columns. */
static int read_interrupts(struct irq_row* rows, int max, int* col_cpu, int* ncols) {
  FILE* f = fopen("/proc/interrupts", "r");
  *ncols = 0;
  if (!f) return 0;
  char line[4096];
  int ncpu = 0, n = 0;
  if (fgets(line, sizeof line, f)) {
    for (char* t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n")) {
      if (strncmp(t, "CPU", 3) != 0) continue;
      if (ncpu < MAX_IRQ_CPUS) col_cpu[ncpu] = atoi(t + 3);
      ++ncpu;
    }
  }
  *ncols = ncpu;
  while (n < max && fgets(line, sizeof line, f)) {
    char* p = line;
    while (*p == ' ') ++p;
    char* colon = strchr(p, ':');
    if (!colon || colon - p >= (long)sizeof rows[n].label) continue;
    memcpy(rows[n].label, p, (size_t)(colon - p));
    rows[n].label[colon - p] = 0;
    p = colon + 1;
    unsigned long long total = 0;
    memset(rows[n].per_cpu, 0, sizeof rows[n].per_cpu);
    for (int c = 0; c < ncpu; ++c) {
      char* end = NULL;
      unsigned long long v = strtoull(p, &end, 10);
      if (end == p) break;
      total += v;
      if (c < MAX_IRQ_CPUS) rows[n].per_cpu[c] = v;
      p = end;
    }
    while (*p == ' ' || *p == '\t') ++p;
    p[strcspn(p, "\n")] = 0;
    snprintf(rows[n].name, sizeof rows[n].name, "%s", p);
    rows[n].total = total;
    ++n;
  }
  fclose(f);
  return n;
}

struct idle_row {
  int cpu, state;
  unsigned long long usage, time_us;
  char name[32];
};

/* One unsigned number from a sysfs file; -1 when it cannot be read. */
static int read_ull(const char* path, unsigned long long* v) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  const int ok = fscanf(f, "%llu", v) == 1;
  fclose(f);
  return ok ? 0 : -1;
}

/* Every CPU's cpuidle states: entries (usage) and time spent (us), with the state's name. No
 * cpuidle driver, no rows. CPUs are numbered from 0 without gaps in sysfs (offline ones too). */
static int read_cpuidle(struct idle_row* rows, int max) {
  int n = 0;
  char path[128];
  for (int cpu = 0; cpu < 1024 && n < max; ++cpu) {
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d", cpu);
    if (access(path, F_OK) != 0) break;
    for (int st = 0; st < 16 && n < max; ++st) {
      struct idle_row* r = &rows[n];
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage", cpu, st);
      if (read_ull(path, &r->usage)) break;
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time", cpu, st);
      if (read_ull(path, &r->time_us)) break;
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", cpu, st);
      r->name[0] = 0;
      FILE* f = fopen(path, "r");
      if (f) {
        if (!fgets(r->name, sizeof r->name, f)) r->name[0] = 0;
        fclose(f);
      }
      r->name[strcspn(r->name, "\n")] = 0;
      for (char* c = r->name; *c; ++c)
        if (*c <= ' ' || *c > '~') *c = '_'; /* one printable word */
      if (!r->name[0]) snprintf(r->name, sizeof r->name, "state%d", st);
      r->cpu = cpu;
      r->state = st;
      ++n;
    }
  }
  return n;
}

/* A transform socket bound to `driver`, keyed if key_bytes; -errno on failure. */
static int bind_driver(const char* type, const char* driver, unsigned long key_bytes) {
  struct sockaddr_alg sa;
  memset(&sa, 0, sizeof sa);
  sa.salg_family = AF_ALG;
  snprintf((char*)sa.salg_type, sizeof sa.salg_type, "%s", type);
  snprintf((char*)sa.salg_name, sizeof sa.salg_name, "%s", driver);
  int t = socket(AF_ALG, SOCK_SEQPACKET, 0);
  if (t < 0) return -errno;
  if (bind(t, (struct sockaddr*)&sa, sizeof sa) < 0) {
    int e = errno;
    close(t);
    return -e;
  }
  if (key_bytes) {
    unsigned char key[64];
    fill(key, key_bytes, 7);
    if (setsockopt(t, SOL_ALG, ALG_SET_KEY, key, (socklen_t)key_bytes) < 0) {
      int e = errno;
      close(t);
      return -e;
    }
  }
  return t;
}

/* One request: hash `in` or encrypt it; the result in `out`, its length returned (<0: -errno).
 * more: the hash's message goes with MSG_MORE (algif_hash: init and update), and the read
 * finalises it (final), whatever the kernel. */
static long one_request(int op, int is_hash, int more, const unsigned char* in, unsigned long n, unsigned char* out,
                        unsigned long out_max) {
  if (is_hash) {
    if (send(op, in, n, more ? MSG_MORE : 0) != (ssize_t)n) return -errno;
    ssize_t r = read(op, out, out_max);
    return r < 0 ? -errno : r;
  }
  /* The control buffer aligned as a cmsghdr (armhf faults on a misaligned one). */
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 16)];
  } control;
  char* cbuf = control.buf;
  memset(&control, 0, sizeof control);
  struct iovec iov = {(void*)in, n};
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof control.buf;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_ALG;
  c->cmsg_type = ALG_SET_OP;
  c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
  uint32_t enc = ALG_OP_ENCRYPT;
  memcpy(CMSG_DATA(c), &enc, sizeof enc);
  c = CMSG_NXTHDR(&msg, c);
  c->cmsg_level = SOL_ALG;
  c->cmsg_type = ALG_SET_IV;
  c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + 16);
  struct af_alg_iv* iv = (struct af_alg_iv*)CMSG_DATA(c);
  iv->ivlen = 16;
  fill(iv->iv, 16, 3);
  if (sendmsg(op, &msg, 0) != (ssize_t)n) return -errno;
  unsigned long got = 0;
  while (got < n && got < out_max) {
    ssize_t r = read(op, out + got, out_max - got);
    if (r <= 0) return r < 0 ? -errno : -EIO;
    got += (unsigned long)r;
  }
  return (long)got;
}

int main(int argc, char** argv) {
  struct opts o = {"hash", "", NULL, NULL, "whole", 0, 0, 0, 0, -1};
  int key_set = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (a[0] != '-' || !a[1] || a[2] || i + 1 >= argc) {
      usage();
      return 2;
    }
    const char* v = argv[++i];
    unsigned long u = 0;
    switch (a[1]) {
      case 't': o.type = v; break;
      case 'a': o.alg = v; break;
      case 'd': o.driver = v; break;
      case 'c': o.check = v; break;
      case 'm': o.send = v; break;
      case 'b':
      case 'n':
      case 'k':
      case 'T':
      case 'C':
        if (parse_ulong(v, &u)) {
          fprintf(stderr, "afalg-bench: %s expects a whole number, found '%s'\n", a, v);
          return 2;
        }
        if (a[1] == 'b') o.bytes = u;
        if (a[1] == 'n') o.count = u;
        if (a[1] == 'k') o.key_bytes = u, key_set = 1;
        if (a[1] == 'T') o.time_limit = (double)u;
        if (a[1] == 'C') o.cpu = u > 1023 ? 1023 : (int)u;
        break;
      default: usage(); return 2;
    }
  }
  const int is_hash = strcmp(o.type, "hash") == 0;
  const int more = strcmp(o.send, "more") == 0;
  if ((!more && strcmp(o.send, "whole") != 0) || (more && !is_hash)) {
    usage();
    return 2;
  }
  if (!o.driver || (!is_hash && strcmp(o.type, "skcipher") != 0) || o.bytes == 0 || o.bytes > MAX_BYTES ||
      o.count == 0 || o.key_bytes > 64 || (!is_hash && (o.bytes % 16 || o.bytes > MAX_CIPHER_BYTES))) {
    usage();
    return 2;
  }
  if (!is_hash && !key_set) o.key_bytes = 16;
  if (o.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(o.cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) fprintf(stderr, "afalg-bench: cannot pin to CPU %d\n", o.cpu);
  }
  unsigned char* in = malloc(o.bytes);
  unsigned char* out = malloc(o.bytes + 64);
  unsigned char* ref = malloc(o.bytes + 64);
  if (!in || !out || !ref) return 1;
  fill(in, o.bytes, 1);

  int t = bind_driver(o.type, o.driver, o.key_bytes);
  if (t < 0) {
    fprintf(stderr, "afalg-bench: cannot bind %s '%s': %s\n", o.type, o.driver, strerror(-t));
    printf("qcesim-afalg %d\ndriver %s\nerror %s\n", BENCH_FORMAT, o.driver, strerror(-t));
    return t == -ENOENT ? 3 : 1;
  }
  int op = accept(t, NULL, 0);
  if (op < 0) {
    fprintf(stderr, "afalg-bench: accept: %s\n", strerror(errno));
    return 1;
  }
  const unsigned long out_max = is_hash ? 64 : o.bytes;
  long out_len = 0;
  printf("qcesim-afalg %d\n", BENCH_FORMAT);
  if (o.check) {
    int rt = bind_driver(o.type, o.check, o.key_bytes);
    int rop = rt < 0 ? -1 : accept(rt, NULL, 0);
    long rn = rop < 0 ? -1 : one_request(rop, is_hash, more, in, o.bytes, ref, out_max);
    out_len = one_request(op, is_hash, more, in, o.bytes, out, out_max);
    if (rn < 0 || out_len < 0)
      printf("check unavailable %s\n", o.check);
    else
      printf("check %s %s\n", rn == out_len && memcmp(ref, out, (size_t)rn) == 0 ? "equal" : "DIFFERENT", o.check);
    if (rop >= 0) close(rop);
    if (rt >= 0) close(rt);
  }

  static struct irq_row before[MAX_IRQ_ROWS], after[MAX_IRQ_ROWS];
  static struct idle_row idle_before[MAX_IDLE_ROWS], idle_after[MAX_IDLE_ROWS];
  char stat_before[512], stat_after[512];
  const int ib = read_cpuidle(idle_before, MAX_IDLE_ROWS);
  static int cols_before[MAX_IRQ_CPUS], cols_after[MAX_IRQ_CPUS];
  int ncols_before = 0, ncols_after = 0;
  const int nb = read_interrupts(before, MAX_IRQ_ROWS, cols_before, &ncols_before);
  read_stat(stat_before, sizeof stat_before);
  struct rusage ru0, ru1;
  getrusage(RUSAGE_SELF, &ru0);
  const int cpu_start = sched_getcpu();
  const double w0 = now_s(CLOCK_MONOTONIC);
  unsigned long done = 0;
  for (; done < o.count; ++done) {
    out_len = one_request(op, is_hash, more, in, o.bytes, out, out_max);
    if (out_len < 0) {
      fprintf(stderr, "afalg-bench: request %lu: %s\n", done, strerror((int)-out_len));
      break;
    }
    if (o.time_limit > 0 && (done & 63) == 63 && now_s(CLOCK_MONOTONIC) - w0 > o.time_limit) {
      ++done;
      break;
    }
  }
  const double wall = now_s(CLOCK_MONOTONIC) - w0;
  getrusage(RUSAGE_SELF, &ru1);
  read_stat(stat_after, sizeof stat_after);
  const int na = read_interrupts(after, MAX_IRQ_ROWS, cols_after, &ncols_after);
  /* A CPU that went offline or online during the loop moves the columns: then no irq_cpu. */
  int same_cols = ncols_before == ncols_after && ncols_after <= MAX_IRQ_CPUS;
  for (int c = 0; same_cols && c < ncols_after; ++c) same_cols = cols_before[c] == cols_after[c];
  const int ia = read_cpuidle(idle_after, MAX_IDLE_ROWS);

  printf("type %s\nalg %s\ndriver %s\nbytes %lu\nmessages %lu\nrequested %lu\nkey_bytes %lu\n", o.type, o.alg,
         o.driver, o.bytes, done, o.count, o.key_bytes);
  if (is_hash) printf("send %s\n", o.send);
  printf("wall_ns %.0f\n", wall * 1e9);
  printf("utime_us %lld\n",
         (long long)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1000000 + (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec));
  printf("stime_us %lld\n",
         (long long)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1000000 + (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec));
  printf("clk_tck %ld\n", sysconf(_SC_CLK_TCK));
  printf("cpu_start %d\ncpu_end %d\n", cpu_start, sched_getcpu());
  printf("stat_before %s\nstat_after %s\n", stat_before, stat_after);
  for (int i = 0; i < na; ++i) {
    const struct irq_row* b = NULL;
    for (int k = 0; k < nb; ++k)
      if (strcmp(before[k].label, after[i].label) == 0) b = &before[k];
    const unsigned long long was = b ? b->total : 0;
    if (after[i].total <= was) continue;
    printf("irq %s %llu %s\n", after[i].label, after[i].total - was, after[i].name);
    /* irq_cpu LABEL CPU COUNT: the CPU that took most of this row's interrupts, and how many
     * (only where the columns are the same CPUs before and after, and the count adds up). */
    int top = -1;
    unsigned long long most = 0;
    for (int c = 0; same_cols && c < ncols_after; ++c) {
      const unsigned long long d0 = b ? b->per_cpu[c] : 0, d = after[i].per_cpu[c] >= d0 ? after[i].per_cpu[c] - d0 : 0;
      if (d > most) most = d, top = c;
    }
    if (top >= 0 && most <= after[i].total - was) printf("irq_cpu %s %d %llu\n", after[i].label, cols_after[top], most);
  }
  /* cpuidle CPU STATE ENTRIES US NAME: the states entered during the loop, matched by CPU and
   * state (a CPU that went offline or online meanwhile has no pair and is left out). */
  for (int i = 0; i < ia; ++i) {
    const struct idle_row* a = &idle_after[i];
    for (int k = 0; k < ib; ++k) {
      const struct idle_row* b = &idle_before[k];
      if (a->cpu != b->cpu || a->state != b->state) continue;
      if (a->usage > b->usage && a->time_us >= b->time_us)
        printf("cpuidle %d %d %llu %llu %s\n", a->cpu, a->state, a->usage - b->usage, a->time_us - b->time_us,
               a->name);
      break;
    }
  }
  if (out_len > 0) {
    printf("last_output ");
    for (long i = 0; i < (out_len < 32 ? out_len : 32); ++i) printf("%02x", out[i]);
    printf("\n");
  }
  printf("status %s\n", done == o.count ? "complete" : out_len < 0 ? "failed" : "time_limit");
  close(op);
  close(t);
  free(in);
  free(out);
  free(ref);
  return out_len < 0 ? 1 : 0;
}
