/*
 * lsan_runner.c -- leak checking for the tests, not for Criterion's runner.
 *
 * Criterion 2.4.1's runner process leaks 48 bytes of its own now and then
 * when it runs tests in parallel (--jobs 2): a calloc inside libcriterion
 * with no caller of ours on the stack.  Every test runs in a worker that
 * boxfort starts with BXFI_MAP in its environment, and LeakSanitizer still
 * checks each of those (a leak there makes the run exit non-zero); only the
 * runner, which runs none of our code, is exempt.
 */
#include <stdlib.h>

int __lsan_is_turned_off(void) __attribute__((visibility("default")));

/* Called by LeakSanitizer at exit: on in every worker, off in the runner. */
int
__lsan_is_turned_off(void)
{
	return getenv("BXFI_MAP") == NULL;
}
