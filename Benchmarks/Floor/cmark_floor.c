/* The floor for `locker build`: cmark-gfm alone parsing every note and rendering it to HTML, on
 * one thread, with the extensions Locker attaches. Reads the file paths from stdin, one a line;
 * prints the number of files and bytes read and of HTML bytes written (so nothing is optimised
 * away). Built and run by run.py. */
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    cmark_gfm_core_extensions_ensure_registered();
    const char *names[] = {"table", "strikethrough", "autolink", "tasklist"};
    char path[4096];
    size_t files = 0, input = 0, output = 0;
    size_t capacity = 1 << 20;
    char *buffer = malloc(capacity);
    while (fgets(path, sizeof path, stdin)) {
        path[strcspn(path, "\n")] = 0;
        FILE *file = fopen(path, "rb");
        if (!file) { perror(path); return 2; }
        size_t length = 0, read;
        while ((read = fread(buffer + length, 1, capacity - length, file)) > 0) {
            length += read;
            if (length == capacity) { capacity *= 2; buffer = realloc(buffer, capacity); }
        }
        fclose(file);
        int options = CMARK_OPT_SOURCEPOS;
        cmark_parser *parser = cmark_parser_new(options);
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            cmark_parser_attach_syntax_extension(parser, cmark_find_syntax_extension(names[i]));
        cmark_parser_feed(parser, buffer, length);
        cmark_node *document = cmark_parser_finish(parser);
        char *html = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser));
        output += strlen(html);
        free(html);
        cmark_node_free(document);
        cmark_parser_free(parser);
        files++;
        input += length;
    }
    printf("%zu files, %zu bytes in, %zu bytes of HTML\n", files, input, output);
    return 0;
}
