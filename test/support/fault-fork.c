// fork(2) and waitpid(2) for the I/O fault walk's zygote (test/support/fault-zygote.ts).
//
// Built by `buildFaultFork` (test/support/fault-fork.ts) with the system C compiler against
// Node's own headers (N-API; libuv symbols come from the node binary). A
// zygote loads the engine once and forks one real child per kill: the child
// is a separate process that the fault layer ends with SIGKILL, at a fraction
// of the cost of starting Node and loading the engine again.
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <node_api.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

static napi_value fail(napi_env env, const char *what) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, msg);
  return NULL;
}

// V8 marks its heap MADV_DONTFORK: a plain fork() would give the child no heap.
// Every mapping is made copy-on-fork again before each fork (V8 maps new pages as it grows).
static int copy_on_fork(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return -1;
  char line[512];
  while (fgets(line, sizeof line, maps) != NULL) {
    unsigned long start, end;
    if (sscanf(line, "%lx-%lx", &start, &end) == 2) (void)madvise((void *)start, end - start, MADV_DOFORK);
  }
  fclose(maps);
  return 0;
}

// The call's first argument as an int32 in *out; 0 when it is missing or not a number (*out unchanged).
static int int32_arg(napi_env env, napi_callback_info info, int32_t *out) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  return argc >= 1 && napi_get_value_int32(env, argv[0], out) == napi_ok;
}

// fork(): the child's pid in the parent, 0 in the child (whose event loop is
// re-created by uv_loop_fork: its own epoll instance, the same watchers).
static napi_value Fork(napi_env env, napi_callback_info info) {
  (void)info;
  uv_loop_t *loop = NULL;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) return fail(env, "uv loop");
  if (copy_on_fork() != 0) return fail(env, "/proc/self/maps");
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return fail(env, "fork");
  if (pid == 0) {
    // A child never outlives its zygote (a zygote ends when the walk does, or is killed when a job hangs).
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(71);
    if (uv_loop_fork(loop) != 0) _exit(70);
  }
  napi_value out;
  napi_create_int32(env, (int32_t)pid, &out);
  return out;
}

// waitpid(pid): blocks until the child ends; [exit code or -1, signal number or 0].
static napi_value Wait(napi_env env, napi_callback_info info) {
  int32_t pid = 0;
  if (!int32_arg(env, info, &pid)) {
    napi_throw_type_error(env, NULL, "waitpid(pid)");
    return NULL;
  }
  int status = 0;
  pid_t r;
  do r = waitpid((pid_t)pid, &status, 0);
  while (r < 0 && errno == EINTR);
  if (r < 0) return fail(env, "waitpid");
  napi_value out, code, sig;
  napi_create_array_with_length(env, 2, &out);
  napi_create_int32(env, WIFEXITED(status) ? WEXITSTATUS(status) : -1, &code);
  napi_create_int32(env, WIFSIGNALED(status) ? WTERMSIG(status) : 0, &sig);
  napi_set_element(env, out, 0, code);
  napi_set_element(env, out, 1, sig);
  return out;
}

// getpid(): the real pid (Node's process.pid is a value set at start-up, the zygote's in a forked child).
static napi_value GetPid(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  napi_create_int32(env, (int32_t)getpid(), &out);
  return out;
}

// _exit(code): ends a forked child at once. A normal exit would tear Node down, and its
// platform threads exist only in the zygote.
static napi_value Exit(napi_env env, napi_callback_info info) {
  int32_t code = 0;
  (void)int32_arg(env, info, &code);
  _exit(code);
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"fork", NULL, Fork, NULL, NULL, NULL, napi_default, NULL},
      {"waitpid", NULL, Wait, NULL, NULL, NULL, napi_default, NULL},
      {"getpid", NULL, GetPid, NULL, NULL, NULL, napi_default, NULL},
      {"exit", NULL, Exit, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
