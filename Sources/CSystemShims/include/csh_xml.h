#ifndef CSH_XML_H
#define CSH_XML_H
// libxml2, loaded at run time (dlopen of libxml2.so.2) as libcurl is: no
// development headers are needed to build, and a run without `xpath` never
// loads it. XML bodies are read by libxml2's XML parser, HTML bodies by its
// HTML parser (which takes the tag soup browsers take); XPath 1.0 is
// libxml2's. The struct layouts below are libxml2's public, stable ABI
// (include/libxml/xpath.h).
#include <stddef.h>

/// Loads libxml2 once (any thread; later calls return the first answer).
/// Returns 0, or -1 with the reason in `message`.
int csh_xml_load(char *message, size_t size);

/// Each text of a result: a node's text content, or a string result.
typedef void (*csh_xpath_text_fn)(void *data, const char *text, size_t length);

enum {
    CSH_XPATH_NODESET = 1,
    CSH_XPATH_BOOLEAN = 2,
    CSH_XPATH_NUMBER = 3,
    CSH_XPATH_STRING = 4,
};

/// Parses `bytes` (`html` nonzero: with the HTML parser) and evaluates
/// `expression` on it. Returns the result's type (CSH_XPATH_*): a node
/// set's texts, or a string, come through `on_text`; a boolean in
/// `*boolean`, a number in `*number`. Returns -1 with libxml2's words in
/// `message` when the body is not XML or the expression is not XPath.
/// Nothing is printed: libxml2's errors are caught on the calling thread.
int csh_xpath_evaluate(const char *bytes, size_t size, int html, const char *expression,
                       csh_xpath_text_fn on_text, void *data, int *boolean, double *number,
                       char *message, size_t message_size);

#endif
