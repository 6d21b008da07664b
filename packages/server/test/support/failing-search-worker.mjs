// A search worker that answers nothing: a search for "the" kills its thread (an error it cannot
// catch, as running out of memory is), any other fails as a search.
export default function failingSearch(task) {
  if (task.statement.params[0] === '"the"')
    return new Promise(() => {
      setTimeout(() => {
        throw new Error('search thread died (simulated)');
      });
    });
  throw new Error('no answer from this worker');
}
