#include "CSDLConsole.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <editline/readline.h>

static sdl_console_completer console_completer;
/* The prompt of the read in progress (NULL between reads), under `output_lock` with every
 * write, so a notification printed from another thread never splits a line. */
static pthread_mutex_t output_lock = PTHREAD_MUTEX_INITIALIZER;
static char *reading_prompt;

/* readline's attempted-completion hook: the candidates with their longest common prefix
 * first, as readline expects (just the prefix when there is one candidate). */
static char **attempted_completion(const char *text, int start, int end) {
    (void)text; (void)start;
    rl_attempted_completion_over = 1;
    if (!console_completer || !rl_line_buffer) return NULL;
    char *typed = strndup(rl_line_buffer, (size_t)end);
    if (!typed) return NULL;
    char **candidates = console_completer(typed);
    free(typed);
    if (!candidates || !candidates[0]) { free(candidates); return NULL; }
    size_t count = 0, common = strlen(candidates[0]);
    while (candidates[count]) count++;
    for (size_t i = 1; i < count; i++) {
        size_t j = 0;
        while (j < common && candidates[i][j] == candidates[0][j]) j++;
        common = j;
    }
    char **matches = calloc(count + 2, sizeof *matches);
    if (!matches) return NULL;
    matches[0] = strndup(candidates[0], common);
    /* `name=` goes on with its value: no space after it; a finished word gets one. */
    rl_completion_append_character = (count == 1 && common > 0 && candidates[0][common - 1] != '=') ? ' ' : '\0';
    if (count == 1) {
        free(candidates[0]);
    } else {
        for (size_t i = 0; i < count; i++) matches[i + 1] = candidates[i];
    }
    free(candidates);
    return matches;
}

void sdl_console_setup(sdl_console_completer completer) {
    static char breaks[] = " ";
    console_completer = completer;
    rl_basic_word_break_characters = breaks;
    rl_completer_word_break_characters = breaks;
    rl_attempted_completion_function = attempted_completion;
}

char *sdl_console_readline(const char *prompt) {
    pthread_mutex_lock(&output_lock);
    free(reading_prompt);
    reading_prompt = strdup(prompt);
    pthread_mutex_unlock(&output_lock);
    char *line = readline(prompt);
    pthread_mutex_lock(&output_lock);
    free(reading_prompt);
    reading_prompt = NULL;
    pthread_mutex_unlock(&output_lock);
    return line;
}

void sdl_console_print_above(const char *text) {
    pthread_mutex_lock(&output_lock);
    /* The prompt's line is cleared (CR, erase line), the text goes there, and libedit draws
     * the prompt and what was typed so far again below it. */
    if (reading_prompt) fputs("\r\033[K", stdout);
    fputs(text, stdout);
    fflush(stdout);
    if (reading_prompt) rl_forced_update_display();
    pthread_mutex_unlock(&output_lock);
}

void sdl_console_add_history(const char *line) { add_history(line); }
