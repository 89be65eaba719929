/* subprocess.c - see subprocess.h: a program run to its end with its output
 * captured. Must not read or write files, nor print anything. */
#include "subprocess.h"
#include "fileutil.h"

#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int gl_run_captured(char *const *argv, char *out, size_t len)
{
    int fd[2];
    pid_t pid;
    posix_spawn_file_actions_t fa;
    out[0] = '\0';
    if (pipe(fd) != 0) {
        gl_say(out, len, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (e != 0) {
        close(fd[0]);
        gl_say(out, len, "cannot run %s: %s", argv[0], strerror(e));
        return -1;
    }
    size_t used = 0;
    char buf[4096];
    for (;;) {
        ssize_t got = read(fd[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        size_t take = (size_t)got < len - 1 - used ? (size_t)got : len - 1 - used;
        memcpy(out + used, buf, take);
        used += take;
    }
    out[used] = '\0';
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            gl_say(out, len, "waitpid: %s", strerror(errno));
            return -1;
        }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
