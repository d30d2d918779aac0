/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/dsfacts.c - a datasheet's "datasheet" object read once: the
 * plan and time the page's heading gives, the data sizes its columns are,
 * each test's capacity answer (capanswer.c reads each search). */
#include "bench/results/dsfacts.h"

#include <stdlib.h>
#include <string.h>

#include "bench/results/codec.h"

static int capacity_of(const json_t *caps, bench_ds_facts *ds)
{
    const size_t n = json_array_size(caps);
    if (!n)
        return 0;
    if (!(ds->capacity = calloc(n, sizeof *ds->capacity)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *el = json_array_get(caps, i);
        bench_ds_capacity *c = &ds->capacity[i];
        ds->ncapacity = i + 1;
        if (!(c->test = strdup(bench_json_str(el, "test", ""))) || !(c->key = strdup(bench_json_str(el, "key", ""))) ||
            bench_cap_answer_of(json_object_get(el, "search"), &c->search) != 0)
            return -1;
    }
    return 0;
}

int bench_ds_facts_of(const json_t *doc, bench_ds_facts *ds)
{
    const json_t *x = json_object_get(doc, "datasheet"), *plan = json_object_get(x, "plan");
    const json_t *sizes = json_object_get(plan, "data_sizes");
    const char *objective = bench_json_str(plan, "capacity", NULL);
    memset(ds, 0, sizeof *ds);
    if (!json_is_object(x))
        return 0;
    ds->present = 1;
    ds->nplan_steps = json_array_size(json_object_get(plan, "steps"));
    ds->step_time_s = bench_json_num(plan, "step_time_s", 0);
    ds->max_threads = bench_json_int(plan, "max_threads", 0);
    ds->announced_s = bench_json_num(x, "announced_s", 0);
    ds->has_took = json_object_get(x, "took_s") != NULL;
    ds->took_s = bench_json_num(x, "took_s", 0);
    ds->ndata_sizes = json_array_size(sizes);
    if ((ds->ndata_sizes && !(ds->data_sizes = calloc(ds->ndata_sizes, sizeof *ds->data_sizes))) ||
        (objective && !(ds->objective = strdup(objective))) ||
        capacity_of(json_object_get(x, "capacity"), ds) != 0) {
        bench_ds_facts_free(ds);
        return -1;
    }
    for (size_t k = 0; k < ds->ndata_sizes; k++)
        ds->data_sizes[k] = (long long)json_integer_value(json_array_get(sizes, k));
    return 0;
}

void bench_ds_facts_free(bench_ds_facts *ds)
{
    for (size_t i = 0; i < ds->ncapacity; i++) {
        free(ds->capacity[i].test);
        free(ds->capacity[i].key);
        bench_cap_answer_free(&ds->capacity[i].search);
    }
    free(ds->capacity);
    free(ds->data_sizes);
    free(ds->objective);
    memset(ds, 0, sizeof *ds);
}

const bench_cap_answer *bench_ds_capacity_of(const bench_ds_facts *ds, const char *test, const char *key,
                                             int first)
{
    const bench_ds_capacity *found = NULL;
    for (size_t i = 0; i < ds->ncapacity && !(first && found); i++)
        if (strcmp(ds->capacity[i].test, test) == 0 && strcmp(ds->capacity[i].key, key) == 0)
            found = &ds->capacity[i];
    return found && found->search.present ? &found->search : NULL;
}
