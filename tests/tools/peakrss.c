/* peakrss: run a command, write its peak resident memory (KiB, ru_maxrss
 * of wait4) to FILE, and exit with the command's status (128 + signal
 * when a signal ended it). The CLI tests use it to hold hostile inputs to
 * a memory bound.
 *
 *   peakrss FILE COMMAND [ARG...] */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: peakrss FILE COMMAND [ARG...]\n");
        return 125;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 125;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "peakrss: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR) {
            perror("wait4");
            return 125;
        }
    FILE *f = fopen(argv[1], "w");
    if (f) {
        fprintf(f, "%ld\n", ru.ru_maxrss);
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
