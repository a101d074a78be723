#define _GNU_SOURCE
#include "CSystemShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* libxml2's structs as include/libxml/xpath.h and xmlerror.h declare them
 * (their layout has not changed since libxml2 2.0). */
typedef struct {
    int nodeNr;
    int nodeMax;
    void **nodeTab;
} csh_xml_node_set;

typedef struct {
    int type;
    csh_xml_node_set *nodesetval;
    int boolval;
    double floatval;
    unsigned char *stringval;
} csh_xpath_object;

typedef struct {
    int domain;
    int code;
    char *message;
} csh_xml_error;

static struct {
    void *(*read_xml)(const char *buffer, int size, const char *url, const char *encoding, int options);
    void *(*read_html)(const char *buffer, int size, const char *url, const char *encoding, int options);
    void (*free_doc)(void *doc);
    void *(*new_context)(void *doc);
    void (*free_context)(void *context);
    csh_xpath_object *(*eval)(const unsigned char *expression, void *context);
    void (*free_object)(csh_xpath_object *object);
    unsigned char *(*node_content)(const void *node);
    void (**free_memory)(void *memory);
    void (*set_structured_error)(void *data, void (*handler)(void *data, csh_xml_error *error));
    void (*set_generic_error)(void *data, void (*handler)(void *data, const char *message, ...));
} xml;

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;
static char xml_failure[512];
static int xml_loaded = -1;

#define BIND(field, name)                                                                \
    do {                                                                                 \
        *(void **)&xml.field = dlsym(library, name);                                     \
        if (xml.field == NULL) {                                                         \
            snprintf(xml_failure, sizeof xml_failure, "libxml2.so.2 has no %s", name);   \
            return;                                                                      \
        }                                                                                \
    } while (0)

static void csh_xml_bind(void) {
    void *library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(xml_failure, sizeof xml_failure, "%s", reason ? reason : "libxml2.so.2 could not be loaded");
        return;
    }
    BIND(read_xml, "xmlReadMemory");
    BIND(read_html, "htmlReadMemory");
    BIND(free_doc, "xmlFreeDoc");
    BIND(new_context, "xmlXPathNewContext");
    BIND(free_context, "xmlXPathFreeContext");
    BIND(eval, "xmlXPathEvalExpression");
    BIND(free_object, "xmlXPathFreeObject");
    BIND(node_content, "xmlNodeGetContent");
    /* `xmlFree` is a variable holding the deallocator. */
    BIND(free_memory, "xmlFree");
    BIND(set_structured_error, "xmlSetStructuredErrorFunc");
    BIND(set_generic_error, "xmlSetGenericErrorFunc");
    xml_loaded = 0;
}

int csh_xml_load(char *message, size_t size) {
    pthread_once(&xml_once, csh_xml_bind);
    if (xml_loaded != 0 && message != NULL && size > 0) snprintf(message, size, "%s", xml_failure);
    return xml_loaded;
}

/* libxml2's error handlers are per thread: set for each evaluation, they
 * keep the first message and print nothing. */
typedef struct {
    char text[512];
    int seen;
} csh_xml_errors;

static void csh_xml_structured(void *data, csh_xml_error *error) {
    csh_xml_errors *errors = data;
    if (errors == NULL || errors->seen || error == NULL) return;
    errors->seen = 1;
    snprintf(errors->text, sizeof errors->text, "%s", error->message ? error->message : "an error");
    size_t length = strlen(errors->text);
    while (length > 0 && (errors->text[length - 1] == '\n' || errors->text[length - 1] == ' ')) errors->text[--length] = 0;
}

static void csh_xml_generic(void *data, const char *message, ...) {
    (void)data;
    (void)message;
}

int csh_xpath_evaluate(const char *bytes, size_t size, int html, const char *expression,
                       csh_xpath_text_fn on_text, void *data, int *boolean, double *number,
                       char *message, size_t message_size) {
    if (csh_xml_load(message, message_size) != 0) return -1;
    csh_xml_errors errors = {{0}, 0};
    xml.set_structured_error(&errors, csh_xml_structured);
    xml.set_generic_error(NULL, csh_xml_generic);
    int result = -1;
    /* XML_PARSE_NONET 2048, NOERROR 32, NOWARNING 64; HTML_PARSE_RECOVER 1 too. */
    int options = 2048 | 32 | 64;
    void *doc = size > 0x7fffffff ? NULL
        : html ? xml.read_html(bytes, (int)size, NULL, "UTF-8", options | 1)
               : xml.read_xml(bytes, (int)size, NULL, "UTF-8", options);
    if (doc == NULL) {
        snprintf(message, message_size, "the body is not %s%s%s", html ? "HTML" : "XML",
                 errors.seen ? ": " : "", errors.seen ? errors.text : "");
        goto done;
    }
    errors.seen = 0;
    void *context = xml.new_context(doc);
    if (context == NULL) {
        snprintf(message, message_size, "libxml2 could not make an XPath context");
        xml.free_doc(doc);
        goto done;
    }
    csh_xpath_object *object = xml.eval((const unsigned char *)expression, context);
    if (object == NULL) {
        snprintf(message, message_size, "%s", errors.seen ? errors.text : "invalid XPath expression");
    } else {
        result = object->type;
        switch (object->type) {
        case CSH_XPATH_NODESET:
            if (object->nodesetval != NULL) {
                for (int index = 0; index < object->nodesetval->nodeNr; index++) {
                    unsigned char *text = xml.node_content(object->nodesetval->nodeTab[index]);
                    on_text(data, text ? (const char *)text : "", text ? strlen((const char *)text) : 0);
                    if (text) (*xml.free_memory)(text);
                }
            }
            break;
        case CSH_XPATH_BOOLEAN:
            *boolean = object->boolval;
            break;
        case CSH_XPATH_NUMBER:
            *number = object->floatval;
            break;
        case CSH_XPATH_STRING:
            on_text(data, object->stringval ? (const char *)object->stringval : "",
                    object->stringval ? strlen((const char *)object->stringval) : 0);
            break;
        default:
            snprintf(message, message_size, "the expression gives a value of XPath type %d, which promise-run does not read", object->type);
            result = -1;
        }
        xml.free_object(object);
    }
    xml.free_context(context);
    xml.free_doc(doc);
done:
    xml.set_structured_error(NULL, NULL);
    xml.set_generic_error(NULL, NULL);
    return result;
}
