/* Runs a command and checks its peak resident memory:
 *
 *   peak_rss MAX_MIB IN -- COMMAND [ARGS...]
 *
 * with standard input from IN ("-": inherited). Prints "peak RSS: N KiB"
 * on stderr after the command's own output, and exits with the command's
 * status, or 99 when its peak (getrusage of the children: ru_maxrss) passed
 * MAX_MIB. For tests that hold a command to a memory bound. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--")) {
        fprintf(stderr, "usage: peak_rss MAX_MIB IN -- COMMAND [ARGS...]\n");
        return 2;
    }
    long max_mib = strtol(argv[1], NULL, 10);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        if (strcmp(argv[2], "-")) {
            int fd = open(argv[2], O_RDONLY);
            if (fd < 0 || dup2(fd, 0) < 0) _exit(127);
            close(fd);
        }
        execv(argv[4], argv + 4);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (waitpid(pid, &status, 0) != pid || getrusage(RUSAGE_CHILDREN, &ru) != 0) return 2;
    fprintf(stderr, "peak RSS: %ld KiB\n", ru.ru_maxrss);
    if (ru.ru_maxrss > max_mib * 1024) return 99;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
