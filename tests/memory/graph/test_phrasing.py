"""Common indirect phrasings, each with varied sentences it must catch and near-misses it must not.

Every group is written from everyday phrasing across domains, not from one session's words.
"""

from __future__ import annotations

import pytest

from memory.graph import extraction
from memory.graph.extraction import extract
from memory.graph.pipeline import build_graph
from memory.graph.types import Candidate, NodeType, Status, Turn


@pytest.fixture(autouse=True)
def strict_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extraction, "STRICT", True)


def _one(text: str, role: str = "user") -> list[Candidate]:
    turns = [Turn(position=0, role="user", content="Let's get going."), Turn(1, role, text)]
    return extract(turns)


def _labels(text: str, node_type: NodeType, role: str = "user") -> list[str]:
    return [c.label for c in _one(text, role) if c.type == node_type]


# ----- "..., so nothing gets lost": what a step keeps from happening is no problem ------------


@pytest.mark.parametrize(
    "text",
    [
        "Ask bakers to tape the label to the box, so nothing gets mixed up at the stall.",
        "Enable the watchdog, refreshed once per wake cycle, so a hung radio stack can't brick it.",
        "The lights go off at 9pm because of a planning condition, so the timer cannot change.",
    ],
)
def test_a_purpose_after_so_is_no_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("I moved the config file, so now the service won't start.", "won't start"),
        ("We rotated the password, so now the app can't connect to the database.", "can't connect"),
    ],
)
def test_a_consequence_after_so_is_still_an_error(text: str, problem: str) -> None:
    assert any(problem in e for e in _labels(text, NodeType.ERROR))
    assert not any(
        problem in d for d in _labels(text, NodeType.DECISION)
    )  # "so now" chooses nothing


# ----- "X and <subject> fails": a second clause stating a problem is split off ----------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "The webhook handler is in billing/views.py and every event fails verification.",
            "every event fails verification",
        ),
        (
            "It's rendered in the request process and the page freezes for ten seconds.",
            "the page freezes for ten seconds",
        ),
        ("I added the index and the nightly import still fails on big files.", "fails on big"),
        ("We moved the cluster to eu-west and the backup job dies after an hour.", "job dies"),
    ],
)
def test_problem_coordinated_after_other_clause_is_its_own_error(text: str, problem: str) -> None:
    errors = _labels(text, NodeType.ERROR)
    assert any(problem in e for e in errors), errors
    assert not any(problem in t for t in _labels(text, NodeType.TASK))


@pytest.mark.parametrize(
    "text",
    [
        "The login and signup fails on Safari.",  # one subject: a noun phrase, no second clause
        "We rewrote the parser and the whole suite passes.",  # no failure in the second clause
    ],
)
def test_noun_phrase_conjunction_is_not_split(text: str) -> None:
    errors = _labels(text, NodeType.ERROR)
    assert all(" and " in e for e in errors) or not errors, errors


# ----- "X break(s) when ...": breaking under a condition --------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The anchors in our docs site also break when a heading changes.",
        "Deep links break after the app is backgrounded.",
        "The invoice totals break if a line has no tax code.",
    ],
)
def test_breaking_under_a_condition_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "We take a break when the build runs.",
        "Lunch break on Fridays is at noon.",
    ],
)
def test_a_pause_is_not_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == []


# ----- decisions stated as a route, a preference, a schedule or a way of running ---------------


@pytest.mark.parametrize(
    "text",
    [
        "We'll take the CloudFront route, the auditors prefer it.",
        "Going the serverless path for the thumbnail worker.",
        "We went the managed-Postgres route for the ledger.",
        "I'd rather go deferrable across the board.",
        "We'd rather pay for the hosted runner than babysit one.",
        "So scratch Sidekiq, we'll do Solid Queue on the existing Postgres.",
        "The reminder goes out 24 hours before the due time.",
        "The weekly digest goes out every Monday.",
        "The db group goes last, one host at a time.",
        "The registry runs as a container next to Connect.",
        "The playbook runs from the Semaphore instance.",
        "Training runs at imgsz 1280 with batch 6.",
        "Of the three venues, the boathouse is the one.",
        "Going for the refurbished model, the warranty is the same.",
        "We'll host the docs on Netlify, not our own box.",
        "So it's going to be a loan, not the savings.",
        "Switched to LSODA, RK45 was crawling on the stiff cases.",
        "We moved over to Fastmail after the outage.",
        "I've switched back to the paper planner.",
        "The consensus was to drop the legacy endpoint.",
        "Our choice is Kafka, mostly for the replay.",
        "I've made up my mind: the launch moves to March.",
        "That settles it, the lease renews for one year.",
        "I'm leaning toward the blue van and I think that's where we land.",
        "Best option is the annual plan.",
        "I'd say we cap the import at 500 rows.",
        "Moving forward every release gets a changelog entry.",
    ],
)
def test_indirect_choice_is_a_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION), text


@pytest.mark.parametrize(
    "text",
    [
        "I'll do the rollout tomorrow.",  # a piece of work, planned
        "We'll do that after lunch.",
        "That's how it runs as of tonight.",
        "It runs at about 40% CPU on the small box.",  # a measurement
        "The route handler is in api/routes.py.",
        "The newsletter went out at 9am.",  # work done, not a standing schedule
        "Going for a walk before the call.",  # an errand
        "She is the one who set up the VPN.",
        "The decision was hard, honestly.",
        "Our choice is between Kafka and NATS.",
        "I'd say we're about halfway through the import.",
        "Moving forward on the migration is blocked by the audit.",
        "The best option is unclear to me.",
        "Decision on the roof: still waiting on quotes.",
        "We haven't decided if the raw zone keeps event_date at all.",
        "No idea yet whether we keep the health check or drop it.",
        "We need to pick state management and local storage this week.",
        "The schedule is great.",
        "Here is the error from DBeaver:",
        "It's going to be a problem for the Android build.",
        "Nothing is final yet.",
        "We need to stick to the plan.",
        "The new dashboard is up.",
        "The new build is broken again.",
        "So the old rows get deleted every night, which is the bug.",
    ],
)
def test_near_misses_are_not_decisions(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == [], text


# ----- a setting stated as its value: "The budget is £9,000", "Markup 12% on parts" ---------


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("The budget is £9,000.", "budget is £9,000"),
        ("Our target food cost is 30% of the menu price.", "target food cost is 30%"),
        ("Every slot is fifteen minutes.", "slot is fifteen minutes"),
        ("Batch size 16 with 4 accumulation steps.", "Batch size 16"),
        ("Markup 12% on parts.", "Markup 12%"),
        ("The retention threshold is 90 days.", "threshold is 90 days"),
        ("Price goes up to £49 for new bookings.", "Price goes up to £49"),
        ("Payment runs are weekly now, every Thursday.", "Payment runs are weekly"),
    ],
)
def test_a_setting_stated_as_its_value_is_a_decision(text: str, setting: str) -> None:
    assert any(setting in label for label in _labels(text, NodeType.DECISION)), text


@pytest.mark.parametrize(
    "text",
    [
        "The build is 14 minutes now.",  # a measurement names no setting
        "Timeouts 61%, auth 27%, other 12%.",  # a breakdown
        "I reran seed 0 overnight.",  # work done with a setting
        "The deadline is 14 March.",  # a date given, not set
        "The distributor's limit is 100 MB.",  # someone else's constraint
        "CPU goes up to 90% at night.",  # a figure that moves is no price
        "Is the budget £9,000?",
    ],
)
def test_a_value_that_sets_nothing_is_no_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == [], text


# ----- indirect supersession: "scratch X", "scrap X", "moved off X", "X is out" ----------------


def _superseded(*messages: str) -> list[str]:
    from memory.graph import pipeline
    from memory.graph.types import Status

    turns = []
    for i, text in enumerate(messages):
        turns.append(Turn(2 * i, "user", text))
        turns.append(Turn(2 * i + 1, "assistant", "Noted."))
    graph = pipeline.build_graph(turns)
    return [
        n.label
        for n in graph.nodes.values()
        if n.type == NodeType.DECISION and n.status == Status.SUPERSEDED
    ]


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        (
            "We're going with Sidekiq for the background jobs.",
            "Their Redis is a paid add-on, so scratch Sidekiq, we'll do Solid Queue for the jobs.",
            "Sidekiq",
        ),
        (
            "We're going with Jenkins for the CI pipeline.",
            "We scrapped Jenkins, going with GitHub Actions for the CI pipeline instead.",
            "Jenkins",
        ),
        (
            "Decided: Heroku for hosting the API.",
            "We moved off Heroku, going with Fly.io for hosting the API since it is cheaper.",
            "Heroku",
        ),
    ],
)
def test_indirect_replacement_supersedes(first: str, second: str, old: str) -> None:
    gone = _superseded(first, second)
    assert any(old in label for label in gone), gone


def test_rewriting_from_scratch_supersedes_nothing() -> None:
    gone = _superseded(
        "We're going with Postgres for the orders store.",
        "I rewrote the importer from scratch, and we'll use Redis for the session cache.",
    )
    assert gone == []


# ----- work done: coordinated past-tense reports, others' work, states reached -----------------


def _done(text: str) -> list[str]:
    from memory.graph.types import Status

    return [c.label for c in _one(text) if c.type == NodeType.TASK and c.status == Status.COMPLETED]


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        (
            "I added the triggerer service, bumped the provider to 4.9.1 and flipped the "
            "seven sensors to deferrable.",
            ["added the triggerer", "bumped the provider", "flipped the seven sensors"],
        ),
        (
            "We recreated the topic, replayed the backlog and notified the two consumers.",
            ["recreated the topic", "replayed the backlog", "notified the two consumers"],
        ),
        (
            "I turned the zap off and sent one short apology to the early birds.",
            ["turned the zap off", "sent one short apology"],
        ),
    ],
)
def test_each_coordinated_report_is_a_task(text: str, pieces: list[str]) -> None:
    done = _done(text)
    for piece in pieces:
        assert any(piece in label for label in done), (piece, done)


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        (
            "I'll write to the supplier this week, and put it to the directors in March.",
            ["write to the supplier", "put it to the directors in March"],
        ),
        (
            "I'll do a 0.2.0 build and put it on github.",
            ["do a 0.2.0 build", "put it on github"],
        ),
        ("Next week I'll repot the ferns, then ring the nursery.", ["ring the nursery"]),
    ],
)
def test_each_coordinated_plan_is_pending(text: str, pieces: list[str]) -> None:
    pending = [
        c.label for c in _one(text) if c.type == NodeType.TASK and c.status == Status.PENDING
    ]
    for piece in pieces:
        assert any(piece in label for label in pending), (piece, pending)
    assert _done(text) == []  # "put" after "I'll" is no past tense


@pytest.mark.parametrize(
    "text",
    [
        "I'll ring the nursery tomorrow, and repotted the ferns already.",
        "I'll ring the nursery tomorrow, and the ferns are repotted already.",
    ],
)
def test_work_done_after_a_plan_stays_completed(text: str) -> None:
    assert any("ferns" in label for label in _done(text)), text


def test_state_participle_after_comma_does_not_split() -> None:
    done = _done("I rewrote the importer, based on the old parser.")
    assert len(done) == 1, done


@pytest.mark.parametrize(
    "text",
    [
        "Finance signed off this morning.",
        "Support confirmed the impact numbers this morning.",
        "Sakura fixed the calculator this afternoon.",
        "I drafted the scorecard this afternoon, four areas.",
        "The data team ran it last week.",
    ],
)
def test_work_reported_done_earlier_is_completed(text: str) -> None:
    assert _done(text), text
    assert _labels(text, NodeType.TASK) == _done(text)  # nothing left pending


@pytest.mark.parametrize(
    "text",
    [
        "I'll review the draft this afternoon.",
        "I still need to send the invoices this afternoon.",
        "Legal wants to approve it this afternoon.",
    ],
)
def test_work_planned_for_later_today_stays_pending(text: str) -> None:
    assert _done(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "Root MFA is on now.",
        "The billing consumer is already on Avro.",
        "The old CI keys are deactivated as of now.",
        "The job ad is posted as of an hour ago.",
        "The photographer is booked and paid.",
        "The new desk is assembled.",
        "The grant application went in on Friday.",
        "Finally got around to updating the README.",
        "That's the invoices sorted.",
    ],
)
def test_state_reached_is_completed(text: str) -> None:
    assert _done(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Is the flag on now?",
        "I wonder if the flag is on now.",
    ],
)
def test_state_near_misses_are_not_completed(text: str) -> None:
    assert _done(text) == [], text


# ----- work someone else is doing: pending, in their hands --------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Grace in my team is handling the recovery with the vendor.",
        "Elif, our outside counsel, is reviewing the DPA changes.",
        "The labelling vendor is re-checking all 6,200 images.",
        "Yeah Mei is scheduling the calibration session for next week.",
        "Dario set up the runner, he's handling its updates.",
    ],
)
def test_someone_else_doing_the_work_is_pending(text: str) -> None:
    from memory.graph.types import Status

    assert [c for c in _one(text) if c.type == NodeType.TASK and c.status != Status.COMPLETED], text


@pytest.mark.parametrize(
    "text",
    [
        "She's complaining about the latency again.",
        "Marta is getting timeouts from the gateway.",
        "He's using the old token.",
    ],
)
def test_someone_else_experiencing_something_is_not_a_task(text: str) -> None:
    assert _labels(text, NodeType.TASK) == [], text


# ----- problems in everyday words: duplicates, getting worse, stuck in a queue, collapsing -------


@pytest.mark.parametrize(
    "text",
    [
        "The analysts say partner_sales has duplicate rows for the fourth of March.",
        "The retry job created duplicate invoices for three customers.",
        "The scheduler loop got noticeably slower after the change.",
        "Checkout latency is getting worse every release.",
        "Unrelated DAGs just sit in queued for an hour.",
        "Builds are sitting in pending since the runner update.",
        "The PPO runs climb to 3000 and then fall off a cliff.",
        "I reran it and it still collapsed, just later.",
        "The player jitters when the camera follows.",
        "Scrolling stutters on older Android phones.",
    ],
)
def test_everyday_problem_wording_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "The dedupe step removes duplicate rows before the load.",
        "The page got faster after the index.",
        "We collapsed the two steps into one.",
        "All three seeds went to 5M without collapsing.",
        "Add jitter to the retry backoff.",
        "Their van delivers twice a week.",  # a schedule
        "Red Lion beat them twice this season.",
        "The mower went up and down the square twice without stalling.",
    ],
)
def test_problem_wording_near_misses_are_not_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "Uploads over 10 MB come back with a 413 from nginx.",
        "The token endpoint gives us a 502 about once an hour.",
        "Half the thumbnails show up blank on Safari.",
        "On staging the login page just spins forever.",
        "The nightly export never finishes on the big tenants.",
        "Our CI has been red since the merge this morning.",
        "The webhook got sent twice for the same order.",
        "Two customers were double-charged for the renewal.",
        "The worker pod keeps getting evicted under load.",
        "The VPN disconnects every couple of hours.",
        "The printer drops the connection overnight.",
        "The import job is creating duplicates in the CRM.",
        "Our p99 latency jumped to two seconds after the deploy.",
        "Password reset emails land in spam for Outlook users.",
        "The space heater trips the breaker with the kettle on.",
        "The battery drains overnight even in sleep mode.",
        "The logo prints blurry on the business cards.",
    ],
)
def test_symptoms_in_plain_words_are_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "The retries come back with the same payload.",
        "I'll show up early to set up the projector.",
        "The build went green again after the fix.",
        "We ran the suite twice to be sure.",
        "The tests are all green.",
    ],
)
def test_symptom_near_misses_are_not_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


# ----- "One problem: X": the announced problem is the clause after the colon -------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "One problem: the invoice export puts every customer on page one.",
            "the invoice export puts every customer on page one",
        ),
        (
            "Separately, something went wrong last night: the mailer sent the renewal reminder "
            "to 300 people who had cancelled.",
            "the mailer sent the renewal reminder to 300 people who had cancelled",
        ),
        (
            "We had an incident on Tuesday: the sync job copied staging prices into production.",
            "the sync job copied staging prices into production",
        ),
        (
            "Next issue is the search page: results from archived projects show up first.",
            "results from archived projects show up first",
        ),
        (
            "Another problem: if I drag the window around, the player falls through the floor.",
            "the player falls through the floor",  # the problem, not the condition it needs
        ),
        (
            "Another problem: whenever I save the draft - the editor goes blank.",
            "the editor goes blank",
        ),
        (
            "Slight drama this morning: one of the fish was on the floor.",
            "one of the fish was on the floor",
        ),
        (
            "Bigger problem: the upload drops every file over 2 GB.",
            "the upload drops every file over 2 GB",
        ),
    ],
)
def test_announced_problem_is_the_clause_after_the_colon(text: str, problem: str) -> None:
    errors = _labels(text, NodeType.ERROR)
    assert errors == [problem], errors


@pytest.mark.parametrize(
    "text",
    [
        "One problem: maybe the cache is stale.",  # a guess, not the problem stated
        "The problem was tiny, and it is fixed now.",  # no colon: nothing announced
    ],
)
def test_announcement_without_a_stated_problem_is_no_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "The lint step fails the build when a migration has no down step.",
        "Now the schema check fails the PR before it merges.",
    ],
)
def test_a_gate_failing_the_build_on_purpose_is_no_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


@pytest.mark.parametrize(
    ("text", "task", "problem"),
    [
        (
            "I bumped the database driver to 4.2 but it rejects every insert.",
            "bumped the database driver to 4.2",
            "it rejects every insert",
        ),
        (
            "We moved the cron to the new VM, it never fires on Sundays.",
            "moved the cron to the new VM",
            "it never fires on Sundays",
        ),
    ],
)
def test_problem_stated_of_it_after_work_done_is_an_error_too(
    text: str, task: str, problem: str
) -> None:
    assert _labels(text, NodeType.TASK) == [task]
    errors = _labels(text, NodeType.ERROR)
    assert len(errors) == 1 and task in errors[0] and problem in errors[0], errors
    assert _labels("I deployed the hotfix and it works now.", NodeType.ERROR) == []


@pytest.mark.parametrize(
    "text",
    [
        "The worker pods keep getting OOMKilled.",
        "Searching for the SKU returns nothing at all.",
        "The monthly totals are way off since the migration.",
        "Nobody renewed the staging certificate.",
        "Battery life is terrible on the new firmware.",
        "The nightly report is giving me an error again.",
        "The admin dashboards in Grafana time out for the largest tenants.",
        "The editor gets sluggish after an hour of typing.",
        "The release branch is still not green.",
        "Memory spiked to 14 GB during the import.",
        "The old deploy script kept the database password in plain text.",
        "The kiosk showed the old menu all morning.",
        "The low-stock alert didn't go off on Saturday.",
    ],
)
def test_more_everyday_problem_wording_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "Nobody noticed the switchover.",  # a migration that went unnoticed went well
        "The lights are off in the lab tonight.",
        "Last year the reviews were awful.",  # a past process recounted
        'Step one on the old page: "Restart the pod if it looks stuck, or page someone."',
        "The auditors want to see expired sessions failing on the retest.",
        "Support wants archived tickets to disappear from the queue.",
        "Juniors can finish the exercise without anyone failing the first step.",
        "Take a time out before the retro.",
        "The queue absorbs the load, so a sudden spike only builds a short backlog.",
        "Week three covers correlation and simple regression, with a quiz on week four.",
        "Set the client to time out after five seconds.",
    ],
)
def test_more_problem_wording_near_misses_are_not_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "Over the weekend the platform team rotated the signing keys in every region and two "
            "mobile clients silently dropped all push payloads.",
            "two mobile clients silently dropped all push payloads",
        ),
        (
            "Notes from the support call with the warehouse leads: they print the labels from "
            "the tablet and the barcodes come out garbled on every third sheet.",
            "the barcodes come out garbled on every third sheet",
        ),
    ],
)
def test_long_clause_is_labelled_from_the_part_stating_the_problem(text: str, problem: str) -> None:
    assert _labels(text, NodeType.ERROR) == [problem]


# ----- a reason split off a decision is that decision's reason, not a decision of its own -------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "Decided: switch to adapter-node for show pages, because live seat counts must "
            "be in the first render.",
            "live seat counts",
        ),
        (
            "So we're switching to a daily triage rotation, two people per day, since the "
            "weekly pick burns people out.",
            "weekly pick",
        ),
        (
            "Decided: replace the spreadsheet with a small web page, since managers read the "
            "report on their phones.",
            "on their phones",
        ),
    ],
)
def test_split_off_reason_is_not_a_decision(text: str, reason: str) -> None:
    decided = [c for c in _one(text) if c.type == NodeType.DECISION]
    assert len(decided) == 1, [c.label for c in decided]
    assert reason in decided[0].reason, decided[0].reason


# ----- tentative picks and accepted options -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I was thinking 10 participants.",
        "Next: save system. Thinking JsonUtility to persistentDataPath, one file per slot.",
        "We're thinking Postgres for the audit log.",
        "One-shot mode, good call, I'll wire it tomorrow.",
        "Weekly digest instead of daily, great idea.",
    ],
)
def test_tentative_or_accepted_option_is_a_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION), text


@pytest.mark.parametrize(
    "text",
    [
        "I'm thinking about it.",
        "I was thinking that we could split the job.",
        "Good call on the retries.",
        "We were thinking of you.",
    ],
)
def test_thinking_and_praise_near_misses_are_not_decisions(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == [], text


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        (
            "Decided: diary study over 3 weeks. I was thinking 10 participants.",
            "With 30% drop-out, 10 is too few, so we're recruiting 16 instead.",
            "10 participants",
        ),
        (
            "We'll cap the upload at 50 MB for the free tier.",
            "50 MB is too tight for video, so the cap is 200 MB instead.",
            "50 MB",
        ),
    ],
)
def test_revision_naming_the_old_figure_supersedes_that_one(
    first: str, second: str, old: str
) -> None:
    gone = _superseded(first, second)
    assert any(old in label for label in gone), gone
    assert len(gone) == 1, gone


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        (
            "I'd like to keep 48 MHz so the SPI side can run at 12 MHz.",
            "OK, dropping the PLL to 36 MHz instead, which gives timing a lot of slack.",
            "48 MHz",
        ),
        (
            "We'll keep the batch size at 64 for the fine-tune.",
            "Dropping the batch size to 32 instead, the 24 GB card runs out of memory.",
            "64",
        ),
    ],
)
def test_lowering_a_setting_supersedes_the_old_setting(first: str, second: str, old: str) -> None:
    gone = _superseded(first, second)
    assert any(old in label for label in gone), gone


# ----- "X kept restarting", "X before Friday" ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The worker kept restarting every few minutes.",
        "The payment webhook kept timing out overnight.",
        "The Bluetooth link keeps disconnecting on older phones.",
    ],
)
def test_repeated_failure_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "The report has to ship before Friday.",
        "The migration lands by the end of the sprint.",
        "Legal review before Thursday.",
    ],
)
def test_work_with_a_deadline_is_pending(text: str) -> None:
    from memory.graph.types import Status

    assert [c for c in _one(text) if c.type == NodeType.TASK and c.status == Status.PENDING], text


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("Someone has to call the insurance company about the claim.", "call the insurance"),
        ("The old endpoints need to be removed once the apps upgrade.", "old endpoints"),
        ("The lease has to be signed by both tenants.", "lease"),
        ("Still haven't written the tests for the parser.", "tests for the parser"),
        ("The quarterly VAT return is due on the 7th.", "quarterly VAT return"),
    ],
)
def test_work_left_for_someone_or_in_the_passive_is_pending(text: str, task: str) -> None:
    assert any(task in t for t in _open(text)), _open(text)


@pytest.mark.parametrize(
    "text",
    ["The cache needs to be able to hold a day of events.", "The API has to be based on REST."],
)
def test_a_requirement_in_the_passive_is_no_pending_task(text: str) -> None:
    assert _open(text) == [], _open(text)


@pytest.mark.parametrize(
    "text",
    [
        "I have to say the new dashboard is nice.",
        "Inference has to stay under 400 ms per photo.",  # a requirement, not a task
    ],
)
def test_obligation_wording_alone_is_not_a_task(text: str) -> None:
    assert _labels(text, NodeType.TASK) == [], text


# ----- where an artifact lives: setup in the opening message, work done later ------------------


@pytest.mark.parametrize(
    "text",
    [
        "The webhook endpoint is in billing/views.py.",
        "The playbook is in playbooks/patch.yml.",
        "The draft is in docs/pricing/q3-proposal.md.",
    ],
)
def test_artifact_location_in_opening_message_is_setup_not_work(text: str) -> None:
    cands = extract([Turn(0, "user", text)])
    assert [c.label for c in cands if c.type == NodeType.TASK] == []
    assert [c for c in cands if c.type == NodeType.FILE]  # the file itself is still kept


@pytest.mark.parametrize(
    "text",
    [
        "The two-stage version is in src/infer/pipeline.py.",
        "The connector config is in migration/debezium/orders.json.",
    ],
)
def test_artifact_location_later_in_session_reports_work(text: str) -> None:
    turns = [
        Turn(0, "user", "Let's get going."),
        Turn(1, "assistant", "Sure."),
        Turn(2, "user", text),
    ]
    assert [c for c in extract(turns) if c.type == NodeType.TASK], text


# ----- a failure gone: "X doesn't hang anymore" is work done, not a new error -------------------


@pytest.mark.parametrize(
    "text",
    [
        "Checkout doesn't hang anymore.",
        "The load test with 400 fake clients doesn't throw anymore.",
        "The nightly export doesn't time out anymore.",
        "The preview pane doesn't flicker anymore after the fix.",
    ],
)
def test_failure_gone_is_completed_not_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text
    assert _done(text), text


@pytest.mark.parametrize(
    "text",
    [
        "The sticky header doesn't stick anymore.",  # working behaviour lost: a problem
        "The sync doesn't run anymore since the upgrade.",
    ],
)
def test_working_behaviour_lost_is_still_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


def test_idiom_nobody_dies_is_no_error() -> None:
    assert _labels("Dark mode can wait, nobody dies without dark mode.", NodeType.ERROR) == []


def test_a_choice_still_open_between_options_is_not_a_task() -> None:
    assert (
        _labels("The client library is still open between Retrofit and Ktor.", NodeType.TASK) == []
    )
    assert _labels("The incentive is still open between Lea and finance.", NodeType.TASK) == []
    assert _labels("The retention policy is still open.", NodeType.TASK)  # open work, no rivals


@pytest.mark.parametrize(
    "text",
    [
        "Dmitri already backfilled January and February on Friday.",
        "I deployed the hotfix on Monday.",
        "Priya confirmed the counts on Friday.",
        "Rang the vet this morning.",
    ],
)
def test_work_done_on_a_past_weekday_is_completed(text: str) -> None:
    assert _done(text), text
    assert _labels(text, NodeType.TASK) == _done(text)


@pytest.mark.parametrize(
    "text", ["We saw the flat on Tuesday evening.", "I told the landlord on Friday."]
)
def test_an_irregular_past_before_a_weekday_plans_nothing(text: str) -> None:
    pending = [c for c in _one(text) if c.type == NodeType.TASK and c.status == Status.PENDING]
    assert pending == []


@pytest.mark.parametrize(
    "text",
    ["I'll deploy the hotfix on Monday.", "The vendor still needs to sign on Friday."],
)
def test_work_for_a_coming_weekday_stays_pending(text: str) -> None:
    assert _done(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "They fixed the mapping on Thursday.",
        "She wrote the migration last night.",
        "He deployed the patch to staging.",
    ],
)
def test_a_person_named_by_pronoun_reports_work_done(text: str) -> None:
    assert _done(text), text


@pytest.mark.parametrize("text", ["It added 200 ms of latency.", "This changed the totals."])
def test_a_thing_as_subject_reports_no_work(text: str) -> None:
    assert _done(text) == [], text


# ----- pending: what is not work waiting, and what still is ----------------------------------


def _open(text: str, role: str = "user") -> list[str]:
    from memory.graph.types import Status

    return [
        c.label
        for c in _one(text, role)
        if c.type == NodeType.TASK and c.status != Status.COMPLETED
    ]


@pytest.mark.parametrize(
    "text",
    [
        "yeah we'll see.",
        "We will see how the new cache behaves under load.",
        "Last night 40 orders got cancelled that were waiting on payment.",
        "The PR was waiting for review for a week, which is what broke the release.",
    ],
)
def test_waiting_to_observe_or_a_past_wait_is_no_pending_task(text: str) -> None:
    assert _open(text) == [], text


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("The bulk export that the finance team asked for can wait.", "bulk export"),
        ("The dashboard which Priya mentioned can wait until after the launch.", "dashboard"),
    ],
)
def test_a_reporting_verb_in_a_relative_clause_leaves_the_deferral(text: str, task: str) -> None:
    assert any(task in t for t in _open(text)), _open(text)


def test_an_assistant_predicting_what_others_will_do_plans_no_task() -> None:
    text = "Updated the checklist. The auditor will look for the signed change log first."
    assert _open(text, role="assistant") == []
    assert _open("Updated the checklist. I will add the rollback steps next.", role="assistant")


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("Next up is the retry budget for the mailer.", "the retry budget for the mailer"),
        ("Next up for us is the staging teardown.", "the staging teardown"),
        ("Remind me to renew the wildcard cert.", "renew the wildcard cert"),
        ("Let's park the theming work until the beta ships.", "theming work"),
        ("Park the importer rewrite for now.", "importer rewrite"),
        ("Once the vendor API lands we should drop the CSV path.", "drop the CSV path"),
        ("After the freeze we need to rotate the signing keys.", "rotate the signing keys"),
    ],
)
def test_work_put_next_parked_or_set_after_an_event_is_pending(text: str, task: str) -> None:
    assert any(task in t for t in _open(text)), _open(text)
    assert _labels(text, NodeType.DECISION) == [], text


def test_a_deferral_pointing_back_keeps_what_it_defers() -> None:
    text = "The agency pitched a loyalty widget as an extra but that can wait until spring."
    assert any("loyalty widget" in t for t in _open(text)), _open(text)


def test_that_as_a_determiner_points_back_to_nothing() -> None:
    text = "The cert is renewed, and that cronjob went in as ops/renew.yaml."
    assert not any("cert is renewed" in t for t in _done(text)[1:]), _done(text)
    assert any(t.startswith("that cronjob") for t in _done(text)), _done(text)


# ----- decisions: an option named as the winner, or reasoned to after "so" ---------------------


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("Pytest wins.", "Pytest wins"),
        ("Honestly the hosted runner wins on cost.", "hosted runner"),
        ("Server components win here.", "Server components"),
        ("I'd rather not run another broker, so a jobs table in Postgres.", "jobs table"),
        ("Hourly is too much for the old phones, so twice a day and only on wifi.", "twice a day"),
    ],
)
def test_an_option_named_the_winner_or_concluded_is_a_decision(text: str, choice: str) -> None:
    assert any(choice in d for d in _labels(text, NodeType.DECISION)), _labels(
        text, NodeType.DECISION
    )


@pytest.mark.parametrize(
    "text",
    [
        "The new pricing wins us a week.",
        "Their bid wins the contract if nobody objects.",
        "The rebate is applied twice, so 1,000 seats a year shows 90 instead of 100.",
        "Power is 2 µA now, so three years holds with margin.",
        "so people start signing up just as much, they just churn more",
    ],
)
def test_a_win_or_a_conclusion_about_facts_is_no_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == [], text


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("We already run Celery for email so Celery it is, with a new queue.", "Celery it is"),
        ("OK, weekly snapshots then.", "weekly snapshots"),
        ("protobuf then.", "protobuf then"),
        ("typed errors then, do it properly.", "typed errors"),
        ("so lets just use the hosted registry", "use the hosted registry"),
        ("The generated client goes into .gitignore since CI rebuilds it.", "goes into .gitignore"),
    ],
)
def test_a_choice_after_so_then_or_typed_in_a_hurry_is_a_decision(text: str, choice: str) -> None:
    decided = _labels(text, NodeType.DECISION)
    assert any(choice in d for d in decided), decided


def test_the_reason_before_so_is_left_out_of_the_choice() -> None:
    text = "Our team already knows Kotlin so Ktor it is."
    (decision,) = [c for c in _one(text) if c.type == NodeType.DECISION]
    assert decision.label == "Ktor it is"
    assert "knows Kotlin" in decision.reason


@pytest.mark.parametrize(
    "text",
    [
        "We ship an invoicing app for dental clinics, about 300 customers.",
        "We're migrating a Rails monolith and the test suite takes 40 minutes.",
        "Hi! We make a scheduling tool for schools and the sync keeps failing.",
        "This lets us skip the cache.",
        "let's say the import is homegrown",
    ],
)
def test_the_opening_description_or_a_hypothetical_is_no_decision(text: str) -> None:
    turns = [Turn(position=0, role="user", content=text)]
    assert [c.label for c in extract(turns) if c.type == NodeType.DECISION] == [], text


def test_the_teams_practice_later_in_the_session_is_still_a_decision() -> None:
    assert _labels("We match refunds on the payout ID.", NodeType.DECISION)


# ----- completed: any verb in the perfect, and getting in touch -------------------------------


@pytest.mark.parametrize(
    ("text", "done"),
    [
        (
            "I've tightened your abstract to 240 words. You may want to reread the ending.",
            "tightened your abstract",
        ),
        ("I've drafted a rollout checklist below: staging first, then 10%.", "drafted a rollout"),
        ("I've annotated the public headers with the export macro.", "annotated the public"),
        ("I've added a null check on that line either way.", "added a null check"),
        ("I added a guard that aborts if the item count changes.", "added a guard that aborts"),
    ],
)
def test_an_assistant_reporting_in_the_perfect_did_the_work(text: str, done: str) -> None:
    labels = [c.label for c in _one(text, "assistant") if c.type == NodeType.TASK]
    assert any(done in t for t in labels), labels


@pytest.mark.parametrize(
    "text",
    [
        "I've noticed you pin an old driver. You could upgrade it.",
        "I've assumed the table is append-only; you might want to confirm that.",
        "If the count changes, I added nothing yet.",
        "Either way, add a guard that aborts.",  # advice
    ],
)
def test_an_assistant_noticing_or_assuming_reports_no_work(text: str) -> None:
    assert _labels(text, NodeType.TASK, "assistant") == [], text


@pytest.mark.parametrize(
    "text",
    ["I called the supplier this morning.", "Emailed the program officer about the budget."],
)
def test_getting_in_touch_is_work_done(text: str) -> None:
    assert _done(text), text


@pytest.mark.parametrize(
    "text",
    [
        "The webhook client now uses the request context.",
        "the exporter now orders rows by created_at.",
        "Search for 'C++' now returns 212 results.",
    ],
)
def test_a_behaviour_as_it_now_stands_is_a_change_done(text: str) -> None:
    assert _done(text), text
    assert _labels(text, NodeType.DECISION) == [], text


def test_what_she_wants_is_no_decision_of_the_team() -> None:
    text = "Lena is doing the icons, she wants the final palette first."
    assert _labels(text, NodeType.DECISION) == []


@pytest.mark.parametrize(
    "text",
    [
        "Priya is moving the cron jobs to the new scheduler this sprint.",
        "yeah Tomas is switching the nightly export over to Parquet.",
    ],
)
def test_someone_doing_work_worded_like_a_choice_is_pending(text: str) -> None:
    assert _open(text), text
    assert _labels(text, NodeType.DECISION) == [], text


def test_a_system_moving_to_an_option_is_still_a_decision() -> None:
    assert _labels("Billing is moving to Stripe and invoices stay in Xero.", NodeType.DECISION)


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("Dana from support will tag the refund tickets.", "tag the refund tickets"),
        ("Omar said he'd look at the flaky test next week.", "flaky test"),
        ("The importer should move to streaming at some point.", "importer should move"),
        ("my colleague is writing the data retention policy.", "data retention policy"),
        ("Ines's also doing the release notes.", "release notes"),
        ("The electrician comes Thursday to check the panel.", "electrician comes Thursday"),
        ("The signed NDA is still with their legal team.", "signed NDA"),
        ("The onboarding checklist needs updating before the hire starts.", "onboarding checklist"),
    ],
)
def test_work_promised_visited_or_still_to_do_is_pending(text: str, task: str) -> None:
    assert any(task in t for t in _open(text)), _open(text)


@pytest.mark.parametrize(
    "text",
    [
        "Reports will show the totals per region.",
        "Omar said the build was green.",
        "The cache needs nothing else.",
        "Tom will probably be late.",
    ],
)
def test_a_prediction_a_report_or_a_need_met_is_no_pending_task(text: str) -> None:
    assert _open(text) == [], text


def test_deciding_in_a_clause_or_ranking_options_is_a_decision() -> None:
    assert _labels("We decided the monorepo is simpler for now.", NodeType.DECISION)
    assert _labels("A partial index is better than a second table here.", NodeType.DECISION)
    assert _labels("The new query is faster than the old one.", NodeType.DECISION) == []
    assert _labels("We haven't decided yet.", NodeType.DECISION) == []


@pytest.mark.parametrize(
    "text",
    [
        "the checkout endpoint is 120 ms now.",
        "Queue depth is back to zero.",
        "The nightly build went green.",
        "The API key is rotated.",
        "The consent form is drafted.",
        "January is already loaded.",
    ],
)
def test_a_measure_reached_or_an_artifact_finished_is_completed(text: str) -> None:
    assert _done(text), text


@pytest.mark.parametrize(
    "text",
    ["Confirmation emails are sent inline in the request.", "Cordoned nodes are down to 5."],
)
def test_how_a_system_behaves_or_a_count_reports_no_work(text: str) -> None:
    assert _done(text) == [], text


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("staying homegrown, it does the job.", "staying homegrown"),
        ("ok, staying with the hosted checkout.", "hosted checkout"),
        ("it'll be Redis Streams for the events.", "Redis Streams"),
        ("the cron approach sounds simpler for us.", "cron approach"),
    ],
)
def test_staying_with_an_option_or_judging_it_simpler_is_a_decision(text: str, choice: str) -> None:
    decided = _labels(text, NodeType.DECISION)
    assert any(choice in d for d in decided), decided


def test_staying_up_late_is_no_decision() -> None:
    assert _labels("I'm staying up late to finish the deck.", NodeType.DECISION) == []


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("My vote is for Svelte.", "Svelte"),
        ("Honestly, Astro gets my vote.", "Astro gets my vote"),
        ("The winner is Playwright.", "Playwright"),
        ("Vitest over Jest, because of the watch mode.", "Vitest over Jest"),
        ("Litestream seems like the better fit.", "Litestream"),
        ("We should use Caddy for the TLS termination.", "Caddy"),
    ],
)
def test_an_option_voted_for_or_ranked_over_another_is_a_decision(text: str, choice: str) -> None:
    decided = _labels(text, NodeType.DECISION)
    assert any(choice in d for d in decided), decided


@pytest.mark.parametrize(
    "text",
    ["Adding the sensor over I2C broke the build.", "We should talk about the budget."],
)
def test_an_action_over_a_bus_or_a_talk_to_have_is_no_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == [], text


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("Let's revisit the pagination after the launch.", "pagination"),
        ("Search filters can come later.", "Search filters"),
        ("Someday we should add an offline mode.", "offline mode"),
        ("Don't forget the release notes for 2.3.", "the release notes for 2.3"),
    ],
)
def test_work_to_revisit_or_not_to_forget_is_pending(text: str, task: str) -> None:
    assert any(task in t for t in _open(text)), _open(text)


def test_later_in_a_condition_is_no_deferral() -> None:
    text = "Added the rule, with a comment so someone removes it later."
    assert _open(text) == []


@pytest.mark.parametrize(
    "text",
    ["so the clamp helped with the spikes at least", "ok, the retry worked for the small files"],
)
def test_a_reply_reporting_what_happened_accepts_no_option(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == [], text


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("I'll send a summary to the channel after the run.", "send a summary"),
        ("I'll ship it in 3.1.", "ship it in 3.1"),
    ],
)
def test_one_persons_i_will_send_or_ship_is_work_taken_on(text: str, task: str) -> None:
    assert any(task in t for t in _open(text)), _open(text)
    assert _labels(text, NodeType.DECISION) == [], text


def test_the_teams_we_will_send_stays_a_decision() -> None:
    assert _labels("We'll send alerts to the ops channel.", NodeType.DECISION)
    assert _labels("I'll put the workers on spot instances.", NodeType.DECISION)


# ----- problems told as behaviour: people upset, a thing that died, a refusal, state lost -----


@pytest.mark.parametrize(
    "text",
    [
        "The gym members are furious about the double booking.",
        "Subscribers keep complaining that the digest arrives twice.",
        "The nightly render job died halfway through the second reel.",
        "Compilation aborted with 3 warnings treated as errors.",
        "The variable 'tenantRegion' is undefined in the template.",
        "The booking form won't let me reserve a Sunday slot.",
        "Half the recipes just aren't searchable since the migration.",
        "The basket empties whenever a shopper switches language.",
        "The survey page goes blank after the third question.",
        "The kiosk app logs everyone out at midnight.",
    ],
)
def test_behaviour_gone_wrong_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "I aborted the import before it touched the archive.",  # an action, not a failure
        "The cashier empties the till at closing.",
        "Nobody died, the rehearsal just ran long.",
    ],
)
def test_near_misses_are_not_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


# ----- decisions as a verdict or a removal: "X is fine", "X goes away", "X has to go" ---------


@pytest.mark.parametrize(
    "text",
    [
        "Printing the tickets in black and white is totally fine, nobody keeps them.",
        "A shared spreadsheet is fine while the club has twelve members.",
        "Two-week delivery is acceptable for the spring catalogue.",
        "Hand-written labels are good enough for the pilot greenhouse.",
        "The welcome dinner goes away, the budget covers one reception only.",
        "So the paper sign-up sheet has to go.",
        "The lamb shank comes off the lunch menu in March.",
        "We'll sell the early-bird passes at 40 euros.",
        "We'll give the volunteers the printed schedule, not the app.",
        "So I think we close the library at six on Fridays.",
    ],
)
def test_verdict_or_removal_is_a_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION), text


@pytest.mark.parametrize(
    "text",
    [
        "The projector is fine now, it was the cable.",  # a problem gone
        "That is fine, thanks.",  # a reaction
        "The treasurer is fine with both venues.",  # someone's consent, no option taken
        "The rash goes away after a couple of days.",  # a finding
        "I have to go to the bank first.",
    ],
)
def test_verdict_near_misses_are_not_decisions(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == [], text


# ----- batch two: figures that are impossible or reconcile, promises, verdicts of commitment --


@pytest.mark.parametrize(
    "text",
    [
        "The attendance sheet shows 130% for week 3 which is impossible.",
        "A dozen of the imported invoices had a duplicate.",
        "Forty support threads got auto-archived over the weekend.",
        "For some reason the printer skips every second label.",
        "The two cash registers don't add up at closing time.",
    ],
)
def test_figures_and_unexplained_behaviour_are_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "The shelf counts all matched after the second stocktake.",
        "The confirmation banner appears after checkout now.",
        "The rota totals match the payroll export again.",
    ],
)
def test_figures_that_reconcile_are_work_done(text: str) -> None:
    assert _done(text), text


def test_a_check_still_to_run_is_not_work_done() -> None:
    assert _done("verify the seat counts match") == []


@pytest.mark.parametrize(
    "text",
    [
        "Ingrid is pricing the catering, she'll send it on Thursday.",
        "They'll review the floor plan before the open day.",
        "The unanswered reviews are assigned to the shift leads.",
        "The parish council decides on the grant in March.",
    ],
)
def test_work_promised_or_handed_out_is_pending(text: str) -> None:
    assert _open(text), text


@pytest.mark.parametrize(
    "text",
    [
        "So the lineup is final, five bands and no headliner.",
        "The wedding date is locked in for the 14th.",
        "Per household for sure, families share one account anyway.",
    ],
)
def test_a_commitment_is_a_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION), text


def test_i_do_not_know_for_sure_decides_nothing() -> None:
    assert _labels("I don't know for sure which hall is bigger.", NodeType.DECISION) == []


def test_a_named_suggestion_that_did_the_trick_resolves_the_problem() -> None:
    from memory.graph import pipeline
    from memory.graph.types import Status

    turns = [
        Turn(0, "user", "Let's sort out the shop floor."),
        Turn(1, "assistant", "Sure."),
        Turn(2, "user", "The label printer crashes on every third sheet."),
        Turn(3, "assistant", "Try the thicker paper setting."),
        Turn(4, "user", "The thicker setting did the trick."),
    ]
    errors = [n for n in pipeline.build_graph(turns).nodes.values() if n.type == NodeType.ERROR]
    assert errors and all(n.status == Status.COMPLETED for n in errors), errors


@pytest.mark.parametrize(
    ("reply", "done"),
    [
        ("The thicker setting did the trick.", "The thicker setting did the trick"),
        (
            "Restarting the printer spooler fixed it, thanks.",
            "Restarting the printer spooler fixed it",
        ),
        ("That did the trick.", None),  # points back: the suggestion is the assistant's, not work
    ],
)
def test_a_named_fix_that_worked_is_work_done(reply: str, done: str | None) -> None:
    turns = [
        Turn(0, "user", "Let's sort out the shop floor."),
        Turn(1, "assistant", "Sure."),
        Turn(2, "user", "The label printer crashes on every third sheet."),
        Turn(3, "assistant", "Try the thicker paper setting, or restart the spooler."),
        Turn(4, "user", reply),
    ]
    tasks = [c.label for c in extract(turns) if c.type == NodeType.TASK]
    assert tasks == ([done] if done else []), tasks


# ----- work done, told in passing: "like you said", "I did fix X", "did X, Y", "X from Y sent" --


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("I emailed the landlord about the boiler like you said.", "emailed the landlord"),
        ("Moved the rehearsal to the small hall, as you suggested.", "Moved the rehearsal"),
        ("I did fix the wobbly table legs in the café, they were loose.", "wobbly table legs"),
        ("did the seating plan, fits and the caterer can work with it.", "did the seating plan"),
        ("The price list is in our handbook now, on page 4.", "price list"),
        ("Amira from accounts sent the reminders this morning.", "sent the reminders"),
    ],
)
def test_work_done_told_in_passing_is_completed(text: str, task: str) -> None:
    assert any(task in t for t in _done(text)), _done(text)


def test_what_someone_said_is_still_reported() -> None:
    assert _done("Ola said the caterer moved the tables.") == []


# ----- preferences and inclinations: "I'd rather split X", "X looks right to me", "my gut says" --


@pytest.mark.parametrize(
    "text",
    [
        "I'd rather split the choir into two sections, the hall is small.",
        "The seating chart looks right to me.",
        "Your running order sounds sensible to us.",
        "The plan for now is we hire two seasonal pickers.",
        "My gut says just refund all three orders and move on.",
        "Our fee is 2 euros a day for late returns.",
    ],
)
def test_a_preference_or_inclination_is_a_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION), text


def test_an_acceptance_names_no_option() -> None:
    assert [
        lbl for lbl in _labels("That sounds good to me.", NodeType.DECISION) if "good" in lbl
    ] == []


def test_a_preference_for_understanding_is_no_option() -> None:
    assert _labels("I'd rather understand why the pump stops first.", NodeType.DECISION) == []


# ----- problems told as a surprise: someone changed it, short deliveries, narrow checks --------


@pytest.mark.parametrize(
    "text",
    [
        "Someone changed the locker timeout from 30 to 5 minutes, no note anywhere.",
        "The bakery delivered 20 loaves instead of 40 on Saturday.",
        "Half the volunteers never got the rota email.",
        "The plagiarism check only compares the first page of each essay.",
        "Two parents complained that the pickup list skips the late group.",
        "The thermostat app hammers the hub every second.",
        "It is not possible to book two rooms in one reservation.",
        "Strange one though: the lobby screen shows yesterday's menu.",
        "Table six was billed twice for the wine, no idea how.",
        "The fridge door was open all night, not sure why.",
    ],
)
def test_a_surprise_told_plainly_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "The shuttle now takes 12 minutes instead of 25.",  # an improvement, measured
        "The printer is on the second floor, no idea why they put it there, but fine.",
    ],
)
def test_a_surprise_near_miss_is_no_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text
    assert _labels(text, NodeType.DECISION) == [], text


# ----- pending work, plainly: a marker after "also", delegation, "will X", trailing hedges -----


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("also TODO: label the spare keys by floor", "label the spare keys"),
        ("I've already asked Noor to draft the seating plan.", "draft the seating plan"),
        ("will move the tasting to the cellar on Friday if it rains.", "move the tasting"),
        (
            "The garden party can wait until the roof is fixed, no point planning a menu that "
            "might still change.",
            "garden party can wait",
        ),
        ("I'll take the raffle idea to the committee, maybe that settles it.", "raffle idea"),
        ("I should probably reprint the loyalty cards at some point.", "reprint the loyalty cards"),
    ],
)
def test_pending_work_told_plainly_is_open(text: str, task: str) -> None:
    assert any(task in t for t in _open(text)), _open(text)


@pytest.mark.parametrize(
    "text",
    [
        "will it hold up on a busy Saturday",  # a question typed without its mark
        "The banners go up on Friday, maybe.",  # a short hedge hedges the whole
        "I asked around and nobody knows.",
    ],
)
def test_pending_near_misses_stay_closed(text: str) -> None:
    assert _open(text) == [], _open(text)


# ----- one thing twice, and work reported as a bare participle --------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The till retries the card and we end up charging duplicate payments.",
        "Late scans create a second visit for the same patient.",
        "On Saturday two couples getting the same table at eight.",
    ],
)
def test_one_thing_twice_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("Invoices written for March and April, the accountant has them.", "Invoices written"),
        ("all 312 certificates printed", "312 certificates printed"),
        ("Wedding licence renewed at the town hall yesterday.", "licence renewed"),
    ],
)
def test_a_bare_participle_reports_work_done(text: str, task: str) -> None:
    assert any(task in t for t in _done(text)), _done(text)


@pytest.mark.parametrize(
    "text",
    ["Three tenants signed it last week.", "The exported figures are what the board wants."],
)
def test_a_participle_near_miss_reports_no_work(text: str) -> None:
    assert _done(text) == [], _done(text)


# ----- the opening message sets the scene --------------------------------------------------------


@pytest.mark.parametrize(
    "opening",
    [
        "I inherited a Rails app from a contractor and the launch is next month, so I want to "
        "get the test suite running first.",
        "We already moved the photos to S3 and the shop reopens on the 14th; I'm planning to "
        "redo the checkout page before then.",
        "The new menu goes live on the 8th, and the printer still needs the final PDF.",
    ],
)
def test_background_in_the_opening_message_is_not_a_task(opening: str) -> None:
    tasks = [c.label for c in extract([Turn(0, "user", opening)]) if c.type == NodeType.TASK]
    assert tasks == []


def test_work_marked_in_the_opening_message_is_a_task() -> None:
    opening = "TODO: rotate the API keys. Done: moved the photos to S3."
    tasks = {c.label: c.status.value for c in extract([Turn(0, "user", opening)])}
    assert tasks == {"rotate the API keys": "pending", "moved the photos to S3": "completed"}


@pytest.mark.parametrize(
    "text",
    [
        "Switched the route to express.raw so the signature verifies.",
        "I moved the fixtures to tests/data.",
    ],
)
def test_switching_a_named_thing_is_work_done(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == []
    assert _labels(text, NodeType.TASK) != []


def test_a_switch_carrying_out_an_earlier_decision_is_work_done() -> None:
    turns = [
        Turn(0, "user", "The container image needs some hardening."),
        Turn(1, "user", "We run as non-root from now on."),
        Turn(2, "user", "Switched to the non-root user."),
    ]
    found = {c.label: c.type for c in extract(turns)}
    assert found == {
        "run as non-root": NodeType.DECISION,
        "Switched to the non-root user": NodeType.TASK,
    }


# ----- problems in plain words: plural subjects, things that never happen, loops, jams --------


@pytest.mark.parametrize(
    "text",
    [
        "Uploads over 10 MB fail with a 413.",
        "Tests pass locally but fail in CI.",
        "The checkout button does nothing on Safari.",
        "Nothing happens when I click save.",
        "Signups from the landing page never reach the CRM.",
        "Users get logged out every few minutes.",
        "The CSV import chokes on semicolons.",
        "The label printer jams on every second label.",
        "Login redirects back to the login page in a loop.",
        "The webhook retries forever when the receiver is down.",
        "The container restarts every 30 seconds.",
        "The sensor readings drop to zero every few hours.",
        "Memory climbs until the pod gets OOM-killed.",
        "The invoice PDF cuts off the last line item.",
        "Half the rows come through with null prices.",
        "Orders placed after midnight show up on the wrong day.",
        "A customer was charged in the wrong currency.",
        "Our Slack bot stopped responding this morning.",
        "The map tiles don't load behind the corporate proxy.",
        "Deleting a user leaves their files behind.",
        "The counter goes negative when two people check out at once.",
        "Every second build picks up a stale cache.",
        "Our GPU jobs get preempted halfway through.",
        "The site went down for twenty minutes last night.",
        "The reminder emails go out an hour late.",
        "Autosave overwrote my changes.",
        "The cluster ran out of disk.",
        "We keep hitting the API rate limit around 3pm.",
        "The queue backs up every Monday morning.",
        "fyi the staging box is dead",
        "cron's not firing on prod",
        "Ran the suite again, 3 failures in test_invoices.py.",
        "all the old links 404 now",
    ],
)
def test_plain_symptoms_are_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "If the tests fail, the deploy stops.",
        "When payments fail we email the customer.",
        "Do nothing if the cache is warm.",
        "We jammed the meeting into Friday.",
        "I cut off the last two columns of the export.",
        "We don't sync on weekends.",
        "Users don't update the app very often.",
        "Keep hitting refresh until it shows up.",
        "The store is down the road.",
        "The price went down after the sale.",
        "The 404 page links back to the home page.",
        "That idea is dead, we're going with the simpler plan.",
    ],
)
def test_plain_symptom_near_misses_are_not_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


# ----- work still open in plain words: lists, blockers, half-done work, debts ----------------


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("Next on my list is the onboarding email.", "pending"),
        ("The Android build is blocked until we get the keystore.", "pending"),
        ("The load test is still on the to-do list.", "pending"),
        ("We owe the client a revised quote.", "pending"),
        ("Left to do: alerts and the status page.", "pending"),
        ("The migration script is half done.", "in_progress"),
        ("Let me look into the flaky test after lunch.", "pending"),
        ("Backfilling last year's data is the next big thing.", "pending"),
    ],
)
def test_open_work_in_plain_words_is_pending(text: str, status: str) -> None:
    tasks = [c for c in _one(text) if c.type == NodeType.TASK]
    assert [c.status.value for c in tasks] == [status], text


@pytest.mark.parametrize(
    "text",
    ["Let me know if it breaks later.", "We owe it to our users to get this right."],
)
def test_open_work_near_misses_are_not_tasks(text: str) -> None:
    assert _labels(text, NodeType.TASK) == [], text


# ----- work done by the people it was left to, and states reached ---------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The client signed the contract on Monday.",
        "Our accountant filed the VAT return.",
        "The landlord fixed the heating.",
        "Dev team rolled out the new checkout to 10% of users.",
        "Taxes are filed.",
        "The grant application is submitted.",
    ],
)
def test_work_done_by_others_and_states_reached_are_completed(text: str) -> None:
    tasks = [c for c in _one(text) if c.type == NodeType.TASK]
    assert [c.status.value for c in tasks] == ["completed"], text


def test_what_someone_confirmed_is_no_work_done() -> None:
    assert _labels("The vendor confirmed it's Windows-1252.", NodeType.TASK) == []


def test_a_state_word_set_off_by_a_dash_marks_the_work() -> None:
    text = "Done — the retry decorator is now applied to all three clients."
    tasks = [(c.label, c.status.value) for c in _one(text, role="assistant")]
    assert tasks == [("the retry decorator is now applied to all three clients", "completed")]


@pytest.mark.parametrize(
    ("text", "is_error"),
    [
        ("Both endpoints now return 404 for unknown ids.", False),
        ("The admin API returns 403 for anonymous requests.", False),
        ("The upload endpoint returns a 500 for big files.", True),
    ],
)
def test_an_error_status_by_design_is_no_error(text: str, is_error: bool) -> None:
    assert bool(_labels(text, NodeType.ERROR, role="assistant")) is is_error, text


# ----- a choice replaced in plain words: replaced with, dropped for, a figure or a date moved -----


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        (
            "The team decided on Jest for the frontend tests.",
            "We replaced Jest with Vitest, it's much faster with Vite.",
            "Jest",
        ),
        (
            "We're using Mailgun for transactional email.",
            "After the outage we dropped Mailgun for Postmark.",
            "Mailgun",
        ),
        (
            "Going with a 30-day trial.",
            "Trial is down to 14 days, the 30-day one barely converted.",
            "30",
        ),
        (
            "Let's launch on March 3.",
            "The launch moves to March 17, the provider needs two more weeks.",
            "March 3",
        ),
        ("The deadline is Friday.", "Deadline got pushed to next Wednesday.", "Friday"),
        (
            "We'll run the workers on EC2.",
            "Scratch EC2, the workers go on Fargate so nobody has to patch hosts.",
            "EC2",
        ),
        (
            "We're going with a monthly newsletter.",
            "Monthly was too much work, the newsletter is quarterly now.",
            "monthly",
        ),
        (
            "Let's cap uploads at 10 MB.",
            "Raised the upload cap to 25 MB, people kept hitting it.",
            "10 MB",
        ),
        (
            "We're doing code review in pairs.",
            "We stopped pair reviews, one reviewer is enough.",
            "pairs",
        ),
        (
            "Going with Heroku for the staging env.",
            "Staging is on Render now; Heroku dropped the free tier.",
            "Heroku",
        ),
    ],
)
def test_plain_replacement_supersedes(first: str, second: str, old: str) -> None:
    superseded = _superseded("Some planning for the project.", first, second)
    assert len(superseded) == 1 and old in superseded[0], superseded


def test_a_measurement_moving_is_no_decision() -> None:
    assert _labels("The build is down to 40 seconds.", NodeType.DECISION) == []
    assert _labels("Evictions happen every week.", NodeType.DECISION) == []


def test_where_a_file_lives_or_a_provisional_choice_is_no_replacement() -> None:
    assert _labels("The client lives in src/cache/redis.ts.", NodeType.DECISION) == []
    assert (
        _superseded(
            "Queues stay on the database driver for now.",
            "Confirmations are a queued notification, mail only for now.",
        )
        == []
    )


# ----- a choice left open across messages is contested -------------------------------------------


def _contested(*messages: str) -> list[str]:
    from memory.graph import pipeline
    from memory.graph.types import Status

    turns = [Turn(0, "user", "Some planning for the project."), Turn(1, "assistant", "Sure.")]
    for text in messages:
        turns += [Turn(len(turns), "user", text), Turn(len(turns) + 1, "assistant", "Noted.")]
    graph = pipeline.build_graph(turns)
    return sorted(
        n.label
        for n in graph.nodes.values()
        if n.type == NodeType.DECISION and n.status == Status.CONTESTED
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Ana prefers Vue for the admin panel.",
            "Ben prefers React for the admin panel, and we still need to decide.",
        ),
        (
            "The team agreed on weekly releases.",
            "Ops insists on monthly releases, so that's open again.",
        ),
    ],
)
def test_a_choice_left_open_in_the_next_message_is_contested(first: str, second: str) -> None:
    assert len(_contested(first, second)) == 2


def test_a_later_preference_without_doubt_is_no_contest() -> None:
    assert _contested("Ana prefers Vue for the admin panel.", "We use Sentry for errors.") == []


# ----- implicit reports: things that stopped happening, work left, time spent ------------------


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("that weird rounding thing hasn't come back since the patch", "completed"),
        ("password reset emails are flowing again", "completed"),
        ("the invoices look right this time", "completed"),
        ("the new onboarding flow is out in the wild", "completed"),
        ("spent the morning untangling the migrations, they apply cleanly now", "completed"),
        ("we never got around to the export button", "pending"),
        ("the pricing page is what's left for this week", "pending"),
        ("the mobile build is the last piece missing", "pending"),
        ("the old cron box can go once the jobs move", "pending"),
    ],
)
def test_implicit_reports_of_work(text: str, status: str) -> None:
    tasks = [c for c in _one(text) if c.type == NodeType.TASK]
    assert [c.status.value for c in tasks] == [status], text


def test_a_leak_found_is_an_error() -> None:
    assert _labels("turns out the memory leak was the image cache", NodeType.ERROR)


def test_an_assistant_narrating_the_option_it_has_gone_with_decides() -> None:
    text = "Since the app stays open, I've gone with a 5-minute interval while foregrounded."
    assert _labels(text, NodeType.DECISION, role="assistant") == [
        "gone with a 5-minute interval while foregrounded"
    ]
    # a problem gone is no option taken
    assert _labels("The flicker is gone with the sequence trick.", NodeType.DECISION) == []


def test_an_assistant_stating_the_practice_from_now_on_decides() -> None:
    text = "We'll send invoice emails through Postmark from now on, as you asked yesterday."
    assert _labels(text, NodeType.DECISION, role="assistant")
    assert _labels("I'll look at the logs next.", NodeType.DECISION, role="assistant") == []


def test_an_action_named_as_replaced_names_no_unrelated_decision() -> None:
    assert (
        _superseded(
            "Some planning for the billing service.",
            "We send invoice emails through Postmark.",
            "Decision: issue credit notes instead of deleting invoices.",
        )
        == []
    )
    assert _superseded(
        "Some planning for the billing service.",
        "Let's delete old invoices after a year.",
        "Decision: archive them instead of deleting old invoices.",
    ) == ["delete old invoices after a year"]


def test_a_conclusion_after_so_colon_is_a_decision_unless_asked() -> None:
    text = "So: run services on EKS with managed node groups."
    assert _labels(text, NodeType.DECISION) == ["run services on EKS with managed node groups"]
    assert _labels("So: what do we do about the backlog?", NodeType.DECISION) == []


def test_a_reason_ends_where_the_next_clause_begins() -> None:
    text = (
        "Switched from Celery to RQ because Celery's workers kept leaking memory on the small "
        "pods: we now run background jobs on RQ workers."
    )
    chosen = [c for c in _one(text) if c.type == NodeType.DECISION and c.replaces]
    assert [(c.label, c.replaces) for c in chosen] == [
        ("run background jobs on RQ workers", "Celery")
    ]
    assert chosen[0].reason == "Celery's workers kept leaking memory on the small pods"


@pytest.mark.parametrize(
    "text",
    [
        "We're going with our own flags table, since the vendor needs a contract we don't have yet.",
        "Picked the cheaper van because the bigger one still has to pass inspection.",
        "Going with Hetzner since the AWS credits still have to be approved.",
    ],
)
def test_the_reason_after_a_decision_is_no_open_task(text: str) -> None:
    candidates = _one(text)
    assert [c.type for c in candidates] == [NodeType.DECISION]
    assert candidates[0].reason


def test_a_verdict_on_a_topic_keeps_the_topic_with_the_pick() -> None:
    assert _labels("Final answer on the venue: the community hall.", NodeType.DECISION) == [
        "the venue: the community hall"
    ]
    assert _labels("Verdict on hosting: Hetzner.", NodeType.DECISION) == ["hosting: Hetzner"]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "Decision: serialize responses with orjson, as agreed.",
            "serialize responses with orjson",
        ),
        (
            "We'll run the integration tests in containers from now on.",
            "run the integration tests in containers",
        ),
        ("Decided: drop the nightly export for good.", "drop the nightly export"),
    ],
)
def test_a_decision_label_leaves_out_the_tag_it_was_said_with(text: str, label: str) -> None:
    assert _labels(text, NodeType.DECISION, role="assistant") == [label]


# ----- problems told in everyday words, outside software too ----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The card reader keeps declining contactless payments.",
        "Our supplier shorted us two sacks of flour this week.",
        "The nightly load duplicated every row from Tuesday.",
        "Row counts between staging and the warehouse don't match.",
        "The signed PDF came back with the wrong effective date.",
        "The invoice was rejected by their AP system for a missing PO number.",
        "My laptop won't wake from sleep since the update.",
        "Nobody can log in since the password reset went out.",
        "The join inflates the order totals.",
        "The scanner reads the barcodes as gibberish.",
        "Our bank feed stopped importing transactions last Friday.",
        "Deliveries to the north side keep arriving an hour late.",
        "The counterparty flagged a conflict between clause 4 and clause 9.",
        "Customers were overcharged on the annual plan.",
    ],
)
def test_an_everyday_problem_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), text


@pytest.mark.parametrize(
    "text",
    [
        "We duplicated the repo for the workshop.",
        "The dashboard now shows the totals as a stacked bar.",
        "Nobody can say for sure when the vendor ships.",
        "Anyone can log in with their SSO account.",
        "The totals add up now that the refunds are excluded.",
        "We bounced ideas around for the logo.",
        "The API returns the field as null when unset, by design.",
        "He keeps asking me out for lunch.",
        "I'm sick of rewriting this config.",
        "The lights come on at 6 automatically.",
        "He declined the invitation politely.",
        "It isn't slow anymore since the index.",
        "Nothing appears to be wrong with the config.",
        "The tap water is fine.",
    ],
)
def test_everyday_near_misses_are_no_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == [], text


@pytest.mark.parametrize(
    ("first", "second", "old"),
    [
        (
            "We picked SendGrid for the receipts.",
            "Decided: receipts now go out through Postmark.",
            "SendGrid",
        ),
        (
            "We host the docs on Netlify.",
            "So the docs now live on Cloudflare Pages, it's free.",
            "Netlify",
        ),
    ],
)
def test_a_decision_told_as_what_now_happens_replaces_the_earlier(first, second, old) -> None:
    gone = _superseded("Notes for the week.", first, second)
    assert any(old in label for label in gone), gone


def test_a_change_of_mind_revises_the_choice_just_made() -> None:
    gone = _superseded(
        "Notes for the week.",
        "Going with Stripe for payments.",
        "On second thought, Paddle handles VAT for us, so Paddle it is.",
    )
    assert gone == ["Going with Stripe for payments"]


def test_a_change_of_mind_long_after_a_choice_leaves_it_alone() -> None:
    gone = _superseded(
        "Notes for the week.",
        "Going with Stripe for payments.",
        "The invoices need a logo.",
        "The footer needs the address.",
        "On second thought, the banner goes in blue, so blue it is.",
    )
    assert gone == []


# ----- work done and work left, as notes outside software are written --------------------------


def _tasks(text: str, *statuses: str) -> list[str]:
    return [c.label for c in _one(text) if c.type == NodeType.TASK and c.status.value in statuses]


@pytest.mark.parametrize(
    "text",
    [
        "Reconciled March against the bank statement, all good.",
        "Paid the deposit for the hall.",
        "Countersigned the NDA and sent it back.",
        "The PR with the retry fix got merged.",
        "Restocked the freezer before the weekend.",
    ],
)
def test_everyday_work_reported_done_is_completed(text: str) -> None:
    assert _tasks(text, "completed"), text


def test_paid_twice_is_a_problem_not_work_done() -> None:
    text = "One vendor got paid twice for the same invoice."
    assert _tasks(text, "completed") == [] and _labels(text, NodeType.ERROR)


@pytest.mark.parametrize(
    "text",
    [
        "Somebody should chase the supplier about the missing flour.",
        "Need to order more boxes before the weekend.",
        "Have to redo the cost model once the quotes come in.",
        "Remember to renew the domain in March.",
        "The allergen labels haven't been updated for the new recipe.",
    ],
)
def test_everyday_work_left_is_pending(text: str) -> None:
    assert _tasks(text, "pending", "in_progress"), text


@pytest.mark.parametrize(
    "text",
    [
        "Have you seen the new menu?",
        "Need to be careful with the oven settings though.",
        "Somebody should have told us earlier, honestly.",
    ],
)
def test_everyday_near_misses_are_not_pending(text: str) -> None:
    assert _tasks(text, "pending", "in_progress") == [], text


# ----- a choice told by how the talk closed on it -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "In the end the oak flooring won out over the tiles.",
            "the oak flooring won out over the tiles",
        ),
        (
            "I'm leaning hard toward Hetzner, and unless someone objects that's what we do.",
            "unless someone objects that's what we do",
        ),
        (
            "The plan now is to ship the Android app first.",
            "The plan now is to ship the Android app first",
        ),
        ("Swapping Trello for Linear, the boards got too slow.", "Swapping Trello for Linear"),
        ("The committee approved the new bylaws.", "The committee approved the new bylaws"),
        ("Vendors get paid net-30, no exceptions.", "Vendors get paid net-30, no exceptions"),
        ("My call: the newsletter goes biweekly.", "the newsletter goes biweekly"),
    ],
)
def test_a_choice_closed_in_plain_words_is_a_decision(text: str, label: str) -> None:
    assert label in _labels(text, NodeType.DECISION)


@pytest.mark.parametrize(
    "text",
    [
        "Let's keep going on the parser; read it first so we don't break the callers.",
        "Put it back before you push.",
    ],
)
def test_a_verb_whose_past_is_its_base_form_asked_for_is_no_work_done(text: str) -> None:
    assert _labels(text, NodeType.TASK) == []


def test_the_same_verb_reported_is_work_done() -> None:
    assert _labels("I read the whole parser first.", NodeType.TASK) == [
        "read the whole parser first"
    ]


# ----- failures told in plain words, outside software --------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The scanner refuses to pick up the barcodes on the new stock.",
        "The projector cuts out after about ten minutes.",
        "The audio drifts out of sync halfway through the episode.",
        "Sales tax got applied to the gift cards by mistake.",
        "The new hire still can't log into the HR portal.",
        "Nobody received the reminder texts last week.",
        "We lost the last two weeks of the attendance records.",
        "The pump makes a grinding noise when it starts.",
        "Payroll went out short for the part-timers.",
        "The kiln didn't reach temperature overnight.",
    ],
)
def test_a_failure_in_plain_words_is_an_error(text: str) -> None:
    [label] = _labels(text, NodeType.ERROR)
    assert label in text and len(label.split()) >= len(text.split()) - 1  # at most "We" goes


@pytest.mark.parametrize(
    "text",
    [
        "We still can't decide between the two venues.",
        "The band drops out of the lineup if we move the date.",
    ],
)
def test_the_same_words_stating_no_failure_are_no_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == []


# ----- terse choices: ruled out, picked in a few words -----------------------------------------


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("No third-party wrapper.", "No third-party wrapper"),
        ("And no Horizon, we don't need the dashboard.", "no Horizon"),
        ("Not moving the tree online, I want the data private.", "Not moving the tree online"),
        ("We will not correct old invoices automatically.", "not correct old invoices"),
        ("I don't want to touch autovacuum settings without her.", "touch autovacuum settings"),
        ("Don't rename the service, two teams call it.", "Don't rename the service"),
        ("For the German, we don't shrink the font.", "don't shrink the font"),
        ("Switch the queue to Redis.", "Switch the queue to Redis"),
        ("i think we just make it a writable store", "make it a writable store"),
        ("Minimum iOS 17.", "Minimum iOS 17"),
        ("Token goes in Keychain.", "Token goes in Keychain"),
        ("Persistence: SwiftData, not Core Data.", "SwiftData, not Core Data"),
        ("For the campaign we only give marketing the rank, not the score.", "only give marketing"),
        ("Having thought it over, I would rather file it myself.", "rather file it myself"),
        ("I'm treating the 1851 baptism as ours.", "treating the 1851 baptism as ours"),
        ("My intention, at least for now, is to let Harlow pull the permit.", "let Harlow pull"),
        ("My plan was one big blast to the whole list.", "one big blast to the whole list"),
        ("I think we'll offer him 15% and see what he says.", "offer him 15%"),
        ("fine, the blue one.", "the blue one"),
        ("The vote came out 4-1 for the Thursday slot.", "Thursday slot"),
        ("Cutting the iPad version from v1, not enough time.", "Cutting the iPad version"),
        ("We dropped the idea of a mobile app for now.", "idea of a mobile app"),
        ("nah, we're not renewing the Datadog contract", "not renewing the Datadog contract"),
        ("the Lisbon offsite is a go", "Lisbon offsite is a go"),
        ("Mobile gets the dark mode first, web later.", "Mobile gets the dark mode first"),
        ("Go for the annual billing, it saves 20%.", "annual billing"),
        ("Tabs over spaces, end of discussion.", "Tabs over spaces"),
        ("ok we take the second option, is more simple for us", "take the second option"),
        ("i decide to use the mysql because hosting support only this", "use the mysql"),
        ("sqlite's fine for now", "sqlite's fine for now"),
        ("the rewrite is off the table", "rewrite is off the table"),
        ("Final: 3 tiers, 9/29/99.", "3 tiers"),
        ("Team agreed: weekly releases on Tuesdays.", "weekly releases on Tuesdays"),
        ("Honestly the simplest is to just cron it, so that's what we'll do.", "just cron it"),
        ("We agreed to freeze the API until the release.", "freeze the API until the release"),
        ("Alright, weekly is the cadence then.", "weekly is the cadence"),
        ("So the filters should be in the URL query.", "filters should be in the URL query"),
        ("So the German card names get translated.", "German card names get translated"),
        ("ok, dated urls then I guess, if he insists", "dated urls then I guess"),
        ("For the checkout it's going to be the dark variant.", "going to be the dark variant"),
        ("After some back and forth we'll do a soft launch in May.", "soft launch in May"),
        ("I've decided the kids will share a room on the trip.", "kids will share a room"),
        ("Sticking to the old supplier for eggs.", "old supplier for eggs"),
        ("Okay, the new opening hours are 9 to 5.", "new opening hours are 9 to 5"),
        ("The new rule: every PR needs one approval.", "every PR needs one approval"),
        ("Verdict: Hetzner for the staging boxes.", "Hetzner for the staging boxes"),
        ("Chef and I agreed the mains: braised beef shin.", "braised beef shin"),
        ("Lockers are settled: first come first served.", "first come first served"),
        ("One more change: brunch is only on Sundays.", "brunch is only on Sundays"),
        ("Sub-07 is excluded.", "Sub-07 is excluded"),
        ("It would change the difficulty, so the bars stay.", "bars stay"),
        ("Hake stays on the menu.", "Hake stays on the menu"),
        ("The car's worth £600, so we're replacing it with a Yaris.", "replacing it with a Yaris"),
    ],
)
def test_a_choice_in_a_few_words_is_a_decision(text: str, label: str) -> None:
    decisions = _labels(text, NodeType.DECISION)
    assert any(label in d for d in decisions), decisions


@pytest.mark.parametrize(
    "text",
    [
        "No idea why it does that.",
        "No rush on the report.",
        "No problem, thanks!",
        "Don't worry about the tests.",
        "Max is 2.3M, nowhere near the limit.",
        "order_id is per order, not per line.",
        "I'd rather understand why before we change it.",
        "The client lives in src/cache/redis.ts.",
        "The docs say the limit is 100 requests per minute.",
        "Stock is the real problem.",
        "The EPUB is the next problem.",
        "Both sides have a point, and I'm not picking one.",
        "New problem: the upload hangs at 99%.",
        "Nothing is settled: we talk again on Friday.",
        "The records must stay for legal reasons.",  # a requirement, not a choice
        "It stays on the shelf until Friday.",
        "Nothing is excluded yet.",
    ],
)
def test_a_few_words_that_choose_nothing_are_no_decision(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == []


def _reply(proposal: str, reply: str) -> list[str]:
    turns = [
        Turn(0, "user", "Let's get going."),
        Turn(1, "assistant", proposal),
        Turn(2, "user", reply),
    ]
    return [c.label for c in extract(turns) if c.type == NodeType.DECISION]


def test_a_new_value_headed_by_its_name_is_a_decision() -> None:
    # Past the opening turns, where "New ..." states the session's goal.
    assert _reply("Noted.", "New venue: the old library hall.") == ["the old library hall"]


def test_a_reply_adopting_the_proposal_decides_what_was_proposed() -> None:
    proposal = "For retries I'd use the retry interceptor, 3 attempts, backoff from 100ms."
    assert _reply(proposal, "ok, do that.") == [
        "the retry interceptor, 3 attempts, backoff from 100ms"
    ]
    assert _reply(proposal, "Thanks, I'll think about it.") == []
    assert _reply(proposal, "would that retry writes too?") == []


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ("Influx + Grafana, yes", "Influx + Grafana"),
        ("token bucket sounds good, let's do that.", "token bucket"),
        ("Do the GenServer buffer, 500ms flush.", "GenServer buffer"),
    ],
)
def test_a_reply_naming_one_of_the_options_offered_decides_it(reply: str, label: str) -> None:
    proposal = (
        "Two options: Influx + Grafana, or Prometheus. For the writes, a GenServer buffer with a "
        "500ms flush, or a token bucket in the socket assigns."
    )
    assert any(label in d for d in _reply(proposal, reply))


@pytest.mark.parametrize(
    ("offer", "reply", "label"),
    [
        (
            "For retries I'd use the retry interceptor, 3 attempts, backoff from 100ms.",
            "ok, interceptor, 3 attempts.",
            "retry interceptor, 3 attempts",
        ),
        ("For a notes app the model actor is cleaner long-term.", "Model actor.", "model actor"),
        (
            "I'd compute the proration ourselves in the updater.",
            "Okay, we'll compute proration in the updater then.",
            "compute proration in the updater",
        ),
    ],
)
def test_a_reply_echoing_the_option_offered_takes_it(offer: str, reply: str, label: str) -> None:
    assert any(label in d for d in _reply(offer, reply)), _reply(offer, reply)


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("Which accounts churn the most, large or small?", "Mostly large accounts."),
        ("Both corosync links should come up once the VLAN is fixed.", "omg both links connected"),
        ("The temperature reads 24 degrees when the room is 18.", "Room temperature sensor."),
    ],
)
def test_a_reply_sharing_words_with_the_last_turn_takes_no_option(said: str, reply: str) -> None:
    assert _reply(said, reply) == []


def test_an_option_the_assistant_offered_turned_down_is_no_decision() -> None:
    offer = "A set lunch at a fixed price tends to fill quieter lunch services."
    assert _reply(offer, "No set lunch, we tried it in 2023.") == []
    assert _reply("Sure.", "No set lunch, we tried it in 2023.") == ["No set lunch"]


@pytest.mark.parametrize(
    "text",
    [
        "But when I call it I get a 500.",
        "The zoning worksheet in the portal will not accept my parcel number.",
        "The portal now lists the application as incomplete.",
        "There's a warning in the console about hydration.",
        "He says all my source notes are gone on his side.",
        "All the Monday appointments moved by an hour.",
        "On Safari it loops back to the login page.",
        "i keep getting logged out every few minutes",
        "the cron job didn't run last night",
        "Customers are seeing each other's carts.",
        "The printer only prints blank pages.",
        "The chart shows last month's data instead of this month's.",
        "When the job runs it crashes.",
        "the page just spins",
        "The jobs table kept deadlocking under load.",
        "Tito sent the early birds two confirmation emails each.",
        "web-07 and web-11 never got the deploy key.",
        "But the cache isn't hitting.",
        "I lost a paragraph when the portal timed me out.",
        "half our users can't upload photos since Tuesday",
        "my laptop fan goes crazy whenever I run the tests",
        "The sync drops every third message.",
        "Dates show up a day early for anyone in Australia.",
        "Our invoices went out with last year's VAT number.",
        "Search is returning results from deleted projects.",
        "Two customers were charged for a cancelled subscription.",
        "Users are getting logged into someone else's account.",
        "the translations are mixed up, German text shows on the French site",
        "Safari users see a blank page after login.",
        "when i click on save, nothing happen",
        "The timestamps are an hour behind.",
        "There is an off-by-one in the pager.",
        "Nothing shows up in the dashboard.",
        "The tap in the kitchen drips.",
        "It keeps logging me out.",
        "Customers get duplicate emails.",
        "The invoices come out a cent off.",
        "Half the RSVPs bounced.",
        "The hall's heating didn't come on.",
        "We're 200 pounds short in the kitty.",
        "The card reader declined three payments in a row.",
        "The bank rejected the transfer.",
        "The Blois hotel came through with the wrong dates.",
        "The invoice comes out unstyled in production.",
        "The out-of-hours message cuts off halfway through.",
        "Every em dash came out as a question mark.",
        "The loft hatch doesn't seal.",
        "The form stopped taking sign-ups on Tuesday.",
        "The PA speaker crackles near the amp.",
        "DiskSpaceLow flaps every night at 3am.",
        "The spine text is a millimetre off-centre.",
        "The edging boards are rotten on one side.",
        "The clamp was on backwards.",
        "The app just shows a spinner forever.",
        "Hannah came this morning and the boiler didn't pass.",
    ],
)
def test_a_symptom_in_plain_words_is_an_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR), _one(text)
    assert _labels(text, NodeType.DECISION) == []


@pytest.mark.parametrize(
    "text",
    [
        "When payments fail we email the customer.",
        "The CI job did not run dbt deps, Tomasz added the step.",
        "The estimate shows 680 instead of 800.",
        "We won't pass the cost on to customers.",
    ],
)
def test_a_symptom_word_in_a_rule_or_a_cause_is_no_error(text: str) -> None:
    assert _labels(text, NodeType.ERROR) == []


@pytest.mark.parametrize(
    "text",
    [
        "The savings account is reconciled.",
        "The accruals journal is posted: electricity £640, review fee £4,800.",
        "Bio is sent, I used your draft with small edits.",
        "The QuickBooks sync is connected and the accounts are mapped.",
        "The employees have been invited to self-onboard.",
        "The migration ran clean on staging.",
        "And the French proof came back clean from Élodie.",
    ],
)
def test_a_step_reported_in_the_passive_is_work_done(text: str) -> None:
    assert _labels(text, NodeType.TASK), _one(text)


@pytest.mark.parametrize(
    "text",
    [
        "The file is based on the old template.",
        "The app is called Notely.",
        "The API is rate limited to 100 requests.",
        "On Xiaomi the worker never runs when the app is killed.",
        "Confirmation emails are sent inline in the POST.",
    ],
)
def test_a_participle_that_describes_is_no_work_done(text: str) -> None:
    assert _labels(text, NodeType.TASK) == []


@pytest.mark.parametrize(
    "text",
    [
        "Mensah is back on Thursday.",
        "Still open.",
        "still haven't made up my mind on that one",
        "don't know yet",
        "Two things are left for later:",
        "We still haven't agreed on the money side.",
        "Nobody is going to type that every time.",
        "She's not going to install it on the family laptop.",
    ],
)
def test_what_is_said_of_work_without_being_work_is_no_task(text: str) -> None:
    assert _labels(text, NodeType.TASK) == []


def test_a_fix_got_working_is_work_done_not_work_in_progress() -> None:
    text = "Finally got the VPN working on the office Macs."
    assert [c.status for c in _one(text) if c.type == NodeType.TASK] == [Status.COMPLETED]


@pytest.mark.parametrize(
    "text",
    [
        "once legal signs off we can publish the page",
        "After the migration, the old bucket can be deleted.",
        "Priya is on the SSO piece this week.",
        "Priya's on the invoices this week.",
        "The README needs a section on deployment.",
        "The vendor still owes us the API keys.",
        "Renewing the SSL cert is on my list for Friday.",
    ],
)
def test_work_waiting_on_something_is_pending(text: str) -> None:
    assert [c.status for c in _one(text) if c.type == NodeType.TASK] == [Status.PENDING]


@pytest.mark.parametrize(
    ("text", "label", "replaced"),
    [
        (
            "Instead of a rewrite, we'll refactor the billing module in place.",
            "refactor the billing module in place",
            "a rewrite",
        ),
        (
            "Rather than retrying forever, we cap it at 5 attempts.",
            "cap it at 5 attempts",
            "retrying forever",
        ),
    ],
)
def test_a_fronted_alternative_is_what_the_choice_after_it_replaces(
    text: str, label: str, replaced: str
) -> None:
    [decision] = [c for c in _one(text) if c.type == NodeType.DECISION]
    assert decision.label.startswith(label)
    assert decision.replaces == replaced


def test_a_fronted_alternative_before_a_symptom_is_no_choice() -> None:
    assert _labels("Instead of crashing, it now hangs forever.", NodeType.DECISION) == []


def _error_statuses(problem: str, later: str) -> dict[str, str]:
    turns = [
        Turn(0, "user", problem),
        Turn(1, "assistant", "Try clearing the cache and restarting the worker."),
        Turn(2, "user", later),
    ]
    graph = build_graph(turns)
    return {n.label: n.status for n in graph.nodes.values() if n.type == NodeType.ERROR}


@pytest.mark.parametrize(
    ("problem", "later"),
    [
        ("The login bug keeps logging people out.", "the login bug is gone now"),
        ("The dashboard shows stale numbers.", "Works now after clearing the cache."),
        ("We get 502s from the API every few minutes.", "The 502s stopped after the nginx change."),
        ("The build is red since this morning.", "The build is green again."),
        ("Uploads time out for big files.", "big uploads go through fine now"),
        (
            "The worker fails with KeyError: 'region'.",
            "Turned out to be a typo in the env; sorted.",
        ),
        ("Customers get duplicate emails.", "No more duplicate emails since the patch."),
        ("The printer only prints blank pages.", "printing works again, it was the driver"),
    ],
)
def test_a_problem_reported_over_is_resolved(problem: str, later: str) -> None:
    statuses = _error_statuses(problem, later)
    assert statuses and set(statuses.values()) == {Status.COMPLETED}, statuses


@pytest.mark.parametrize(
    ("problem", "later"),
    [
        ("The sync drops every third message.", "The lorawan join works now."),  # another thing
        ("The sync drops every third message.", "And all my notes are gone."),  # a new problem
        ("The build is red since this morning.", "It still doesn't work again."),
    ],
)
def test_something_else_working_resolves_no_problem(problem: str, later: str) -> None:
    assert Status.FAILED in _error_statuses(problem, later).values()


# ----- "we'll X": what a user says the team will do is the way chosen --------------------------


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("We will validate request bodies with malli through the router.", "validate request"),
        ("Okay, we'll compute proration in the updater then.", "compute proration"),
        ("card payments: we'll borrow two readers from the football club", "borrow two readers"),
        ("So we're going to start at 11 and use the first hour for sorting.", "start at 11"),
    ],
)
def test_what_we_will_do_is_a_decision(text: str, choice: str) -> None:
    assert any(choice in d for d in _labels(text, NodeType.DECISION))
    assert not any(choice in t for t in _labels(text, NodeType.TASK))


@pytest.mark.parametrize(
    ("text", "work"),
    [
        ("We'll sort out the gallery next week.", "sort out the gallery"),  # a time: work to do
        ("we'll look at the importer, which isn't happening before August", "look at"),
        ("We'll need coaches for the younger years.", "need coaches"),  # a need, not a choice
        ("I'll update the changelog.", "update the changelog"),  # one person's to-do
    ],
)
def test_work_for_later_or_a_need_is_no_decision(text: str, work: str) -> None:
    assert not any(work in d for d in _labels(text, NodeType.DECISION))


# ----- an assistant narrating its work reports a problem over, and a test's expectation --------


def test_an_assistant_reporting_the_failing_test_passing_again_resolves_the_error() -> None:
    turns = [
        Turn(0, "user", "The nightly export test fails on the empty file."),
        Turn(
            1,
            "assistant",
            "The failing test passes again, and a new test confirms that "
            "negative amounts are rejected as well.",
        ),
    ]
    errors = {n.label: n.status for n in build_graph(turns).of_type(NodeType.ERROR)}
    assert errors == {"The nightly export test fails on the empty file": Status.COMPLETED}


# ----- "went for X" picks X; an errand after a comma is a step of its own ----------------------


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("I went for the cheaper flour from the wholesaler.", "cheaper flour"),
        ("We've gone for the oak worktop in the end.", "oak worktop"),
        ("Went for TeamUp, the booking page is nicer.", "TeamUp"),
    ],
)
def test_went_for_an_option_is_a_decision(text: str, choice: str) -> None:
    assert any(choice in d for d in _labels(text, NodeType.DECISION))


@pytest.mark.parametrize(
    "text",
    [
        "We went for a walk after the meeting.",
        "The budget is gone for this quarter.",
        "It went for months without anyone noticing.",
    ],
)
def test_going_for_a_walk_or_a_stretch_of_time_picks_nothing(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == []


@pytest.mark.parametrize(
    ("text", "decision", "done"),
    [
        (
            "Exzolt it is, rang the vet and I'm picking it up Thursday.",
            "Exzolt it is",
            "rang the vet",
        ),
        ("Hake stays, paid the deposit this morning.", "Hake", "paid the deposit"),
        ("Went for TeamUp, signed up for the trial.", "TeamUp", "signed up for the trial"),
        ("Added the UniqueID, went with mossbyte.ShedSorter.", "mossbyte.ShedSorter", "UniqueID"),
    ],
)
def test_a_step_after_a_comma_is_kept_apart_from_the_choice(
    text: str, decision: str, done: str
) -> None:
    decisions = _labels(text, NodeType.DECISION)
    assert any(decision in d and done not in d for d in decisions)
    assert any(done in t for t in _labels(text, NodeType.TASK))


def test_another_persons_purchase_after_and_is_no_work_of_ours() -> None:
    text = "A man came in and bought a Pink Floyd record from the £3 box."
    assert _labels(text, NodeType.TASK) == []


# ----- a short question tagged onto a statement leaves the statement stated -------------------


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("Ordered 11m for the lot, which I think is enough?", "Ordered 11m for the lot"),
        ("Renewed the certificate this morning, right?", "Renewed the certificate"),
    ],
)
def test_a_statement_with_a_tag_question_is_still_stated(text: str, done: str) -> None:
    assert any(done in t for t in _labels(text, NodeType.TASK))


def test_a_whole_question_states_nothing() -> None:
    assert _one("Should I order 11m for the lot or would 10m be enough for both chairs?") == []


def test_a_caller_on_hold_is_no_work_put_on_hold() -> None:
    assert _labels("Calls drop after about 30 seconds on hold.", NodeType.TASK) == []
    assert _labels("The gallery is on hold until spring.", NodeType.TASK)


# ----- choices told as a replacement, a keep, a ban or a sufficiency ---------------------------


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("webpacker gets replaced by importmap, we barely have any JS", "webpacker gets replaced"),
        ("The flour isn't changing, people come here for the stoneground.", "flour isn't changing"),
        ("Removed the template one and kept the solaredge sensor.", "kept the solaredge sensor"),
        ("No off-lead walks at all for the first six months.", "No off-lead walks"),
        ("Counted the handsets, so four handsets will do us.", "four handsets will do us"),
        ("The plums are left out, they get pruned in July.", "plums are left out"),
        ("Candes it is then, there's a chambre d'hôte there.", "Candes it is then"),
        ("So it's Netlify after all.", "it's Netlify after all"),
        ("Domestic goes from £50/hr to £55 + VAT from December.", "goes from £50/hr to £55"),
    ],
)
def test_a_choice_told_as_a_replacement_a_keep_a_ban_or_enough_is_a_decision(
    text: str, choice: str
) -> None:
    assert any(choice in d for d in _labels(text, NodeType.DECISION)), _one(text)


@pytest.mark.parametrize(
    "text",
    [
        "No errors at all for the first six months.",
        "The price isn't changing until April.",
        "I kept getting a 502 from the proxy.",
    ],
)
def test_a_clean_run_a_date_or_a_symptom_is_no_such_choice(text: str) -> None:
    assert _labels(text, NodeType.DECISION) == []


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("Update: we picked her up on Tuesday.", "picked her up on Tuesday"),
        (
            "Deprecation warnings on 6.1 are cleaned up.",
            "Deprecation warnings on 6.1 are cleaned up",
        ),
        (
            "Emailed the tourist office at Chaumont, waiting to hear back.",
            "Emailed the tourist office",
        ),
    ],
)
def test_work_picked_up_or_cleaned_up_is_done(text: str, done: str) -> None:
    assert any(done in t for t in _tasks(text, "completed")), _one(text)


def test_waiting_to_hear_back_is_still_open() -> None:
    text = "Emailed the tourist office at Chaumont, waiting to hear back."
    assert _tasks(text, "pending") == ["waiting to hear back"]


@pytest.mark.parametrize(
    "text",
    [
        "A parent pointed out that the letter has the wrong date.",
        "The invoices for recurring walks still show $22.",
        "Holding down and jump to drop through works only half the time.",
        "The Pi was thermal throttling in the loft cupboard.",
        "The ceiling light tripped the whole downstairs circuit.",
        "The jump in my platformer feels awful on keyboard.",
        "The kitchen laminate near the wall is lifting at the joins.",
    ],
)
def test_more_symptoms_in_plain_words_are_errors(text: str) -> None:
    assert _labels(text, NodeType.ERROR), _one(text)


def test_where_a_thing_lives_is_no_work_done_unless_it_is_now_there() -> None:
    assert _tasks("The schema is in rules.yaml.", "completed") == []
    assert _tasks("The connector config is now in migration/debezium/orders.json.", "completed")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("Our orders stream is falling behind again.", "orders stream is falling behind"),
        (
            "Changed the venue fine, but the date is still showing Thursday 13th instead of "
            "Friday 14th.",
            "the date is still showing Thursday 13th",
        ),
        (
            'Error: on /de/products the console shows "Hydration failed because the initial UI '
            'does not match what was rendered on the server".',
            "Hydration failed because the initial UI does not match",
        ),
    ],
)
def test_a_lag_a_stale_value_or_a_quoted_message_is_the_error(text: str, error: str) -> None:
    assert any(error in e for e in _labels(text, NodeType.ERROR)), _one(text)
    assert _labels(text, NodeType.DECISION) == []


def test_a_lowercase_i_after_a_comma_opens_a_clause_as_a_capital_does() -> None:
    text = "the consumer list has 40 rows from today's deploys, i'll write a cleanup tomorrow"
    assert _tasks(text, "pending") == ["write a cleanup tomorrow"]
