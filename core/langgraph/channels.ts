// LangGraph's reserved channel names as this engine reads them (upstream `langgraph/constants`).

/** LangGraph's channel for interrupts among pending writes (upstream `INTERRUPT`). */
export const INTERRUPT_CHANNEL = '__interrupt__';
