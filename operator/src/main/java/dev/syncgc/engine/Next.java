package dev.syncgc.engine;

/** What an owner's worker does once the steps of its plan ran: nothing more, or look again later. */
enum Next { DONE, RETRY }
