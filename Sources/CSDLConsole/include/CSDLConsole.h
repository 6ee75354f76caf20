#ifndef CSDLCONSOLE_H
#define CSDLCONSOLE_H

/* Line editing for `sdl-run console` on libedit. No library header here (see CSDLShim.h):
 * libedit's readline globals stay in C, so Swift never touches shared mutable state. */

/// Returns the candidates for the word before the cursor of `typed` (the line up to the
/// cursor) as a malloc'd, NULL-terminated array of malloc'd strings, or NULL.
typedef char **(*sdl_console_completer)(const char *typed);

/// Completion by `completer` on whole space-separated words, no file names.
void sdl_console_setup(sdl_console_completer completer);
/// One line with editing and history; NULL at end of input. The caller frees it.
char *sdl_console_readline(const char *prompt);
void sdl_console_add_history(const char *line);
/// Prints `text` (whole lines) above the line being typed: the prompt's line is cleared, the
/// text written, and the prompt drawn again below it. Outside a read, it just prints.
void sdl_console_print_above(const char *text);

#endif
