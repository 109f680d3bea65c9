"""Does an agent's message clearly say that the task's own goal is done? The scripted user's stop rule.

A dialogue must end only on a real completion statement, not on a completion word: issue #31
saw "has been sold" end a return after one turn, and "Let me know when you are done.", "I
successfully looked up your account. Let me now check the loan." or "all set to proceed with
the next step" all ended dialogues too. A message reports the goal done when one of its
sentences

- holds a completion phrase ("done", "completed", "finished", "all set", "taken care of",
  "successfully", or "has been / I have <the goal's verb>ed"),
- states it rather than asks, promises or describes work under way: not negated, not after
  "will", "to", "once", "when", "if"... just before it, not "all set to" / "done with",
- and refers to the goal: a content word of the goal (its verb or object, four-letter stems) in
  the same sentence, besides the completion phrase itself;

and the message as a whole neither asks a question (other than "anything else?") nor
announces more work on the task ("let me now", "next step", "I'll now", "going to").
"""

from __future__ import annotations

import re

__all__ = ["as_clause", "done_statement", "goal_stems", "goal_text", "reports_done"]

DONE_MESSAGE = "All done: I have completed {what} for you, as you asked ({request})."
REFUSE_MESSAGE = "I have looked into your request ({request}), but I can't do that."

# Completion phrases on their own: they must be about the goal (see _refers).
_DONE = re.compile(r"\b(done|completed|complete|all set|successfully|finished|taken care of)\b", re.I)
# "X has been <verb>ed", "I have <verb>ed": a completion only when the verb is the goal's own.
_PASSIVE = re.compile(r"\b(?:has|have|had|was|were|is|are) (?:now |just |already |also )?been (\w+)", re.I)
_PERFECT = re.compile(r"\b(?:I|we)(?: have|'ve) (?:now |just |already |also )?(\w+ed)\b", re.I)
_NEGATED = re.compile(r"(\bnot|n't|\bunable|\bcannot|\bfailed|\bno longer|\bnever|\byet to)\b", re.I)
# Just before the phrase: a request, a condition, a promise or work under way, not a statement.
_NOT_STATED = re.compile(r"\b(will|would|shall|should|can|could|to|be|being|once|when|whenever|after|until|before|"
                         r"if|soon|almost|nearly|please|let me know|are you|you are|you're|get)\b\W*(?:\w+\W+){0,2}$", re.I)
# Just after the phrase: "all set to proceed", "done with the first step", "done for now".
_NOT_AFTER = re.compile(r"^\W*(to|with|for now)\b", re.I)
_MORE_WORK = re.compile(r"\b(let me (?:now|next|also|just)?\s*(?:check|look|see|find|get|verify|confirm|proceed|"
                        r"continue|move)|next step|now (?:I'?ll|I will|let)|I'?ll now|I will now|going to|about to|"
                        r"in progress|working on|still (?:need|have|working|looking|checking)|proceed(?:ing)? with)\b",
                        re.I)
_ANYTHING_ELSE = re.compile(r"\b(is there )?anything else\b[^?]*\?", re.I)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
# Words of an instruction that say nothing about what the goal is.
_NOT_GOALS = {"asked", "unless", "about", "answer", "conversation", "once", "when", "with", "your", "their", "that",
              "this", "have", "been", "want", "would", "should", "could", "know", "known", "tell", "give", "given",
              "end", "ends", "done", "facts", "questions", "please", "like", "from", "then", "them", "they", "there",
              "what", "which", "where", "after", "before", "into", "also", "just", "some", "something", "help",
              "need", "make", "sure", "thank", "thanks", "agent", "assistant", "talking", "goal", "able", "will",
              "complete", "completed", "finished", "successfully", "taken", "care", "request", "mine", "right", "here"}
# Where the generator's instructions (generator/synthesis/templates.py, refusals.py) state the goal.
_GOAL_START = re.compile(r"\b(?:Your goal:|You want this:|You want to know:|You want to)\s*", re.I)
_GOAL_END = re.compile(r"\b(?:Say these as part|Give these facts|Give these only|Answer questions|Do not invent)", re.I)


def as_clause(text: str) -> str:
    """``text`` with its sentence ends taken out, to quote inside one completion statement (a quoted
    request that ended in "?" would read as an open question, one that ended in "." as a new sentence)."""
    return re.sub(r"[.!?;]+(\s+|$)", " ", text).strip()


def done_statement(tools: list[str], opening: str, refusal: bool = False) -> str:
    """What an agent that did the task says, as the stop rule needs it: the steps (``tools`` called)
    and the user's own request, so the statement names the goal ("All done" alone does not); for a
    refusal, that it cannot be done (the user leaves on that too). The oracles' last message."""
    request = as_clause(opening)
    if refusal:  # the policy forbids it: saying "done" would be a lie in the trace
        return REFUSE_MESSAGE.format(request=request)
    what = ", ".join(dict.fromkeys(tool.replace("_", " ") for tool in tools)) or "your request"
    return DONE_MESSAGE.format(what=what, request=request)


def goal_text(instruction: str) -> str:
    """The part of a user instruction that says what they want (who they are and their facts left out)."""
    start = _GOAL_START.search(instruction)
    text = instruction[start.end():] if start else instruction
    end = _GOAL_END.search(text)
    return text[:end.start()] if end else text


def goal_stems(instruction: str) -> set[str]:
    """The first four letters of each content word of the instruction's goal."""
    return {w[:4] for w in re.findall(r"[a-z]{4,}", goal_text(instruction).lower()) if w not in _NOT_GOALS}


def _refers(sentence: str, span: tuple[int, int], stems: set[str]) -> bool:
    """A goal word in the sentence, outside the completion phrase itself."""
    rest = sentence[:span[0]] + " " + sentence[span[1]:]
    return any(w[:4] in stems for w in re.findall(r"[a-z]{4,}", rest.lower()) if w not in _NOT_GOALS)


def _stated(sentence: str, start: int, end: int) -> bool:
    before, after = sentence[max(0, start - 40):start], sentence[end:]
    return not (_NEGATED.search(before) or _NOT_STATED.search(before) or _NOT_AFTER.match(after))


def _completions(sentence: str, stems: set[str]) -> list[tuple[tuple[int, int], bool]]:
    """(span, names the goal's verb) of every completion phrase of the sentence."""
    found = [(m.span(), False) for m in _DONE.finditer(sentence)]
    found += [(m.span(), True) for m in _PASSIVE.finditer(sentence) if m.group(1).lower()[:4] in stems]
    found += [(m.span(), True) for m in _PERFECT.finditer(sentence) if m.group(1).lower()[:4] in stems]
    return found


def reports_done(message: str, goal: str) -> bool:
    """The agent clearly says that ``goal`` (the user's instruction) is done (module docstring)."""
    if "?" in _ANYTHING_ELSE.sub("", message) or _MORE_WORK.search(message):
        return False
    stems = goal_stems(goal)
    for sentence in _SENTENCE.split(message):
        for (start, end), names_goal in _completions(sentence, stems):
            if _stated(sentence, start, end) and (names_goal or _refers(sentence, (start, end), stems)):
                return True
    return False
