
CREATE TABLE public.guard_events (
    id bigint NOT NULL,
    ts timestamp with time zone NOT NULL,
    line text NOT NULL
);

CREATE SEQUENCE public.guard_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.guard_events_id_seq OWNED BY public.guard_events.id;

CREATE TABLE public.guard_quarantine (
    ts timestamp with time zone NOT NULL,
    state text NOT NULL,
    key text NOT NULL,
    error text NOT NULL,
    entry text NOT NULL
);

CREATE TABLE public.guard_schema (
    version integer NOT NULL
);

CREATE TABLE public.guard_slots (
    key text NOT NULL,
    slot integer NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    start bigint NOT NULL,
    child integer DEFAULT 0 NOT NULL,
    started timestamp with time zone NOT NULL,
    deadline timestamp with time zone
);

CREATE TABLE public.guard_state (
    name text NOT NULL,
    doc text NOT NULL,
    updated timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.guard_events ALTER COLUMN id SET DEFAULT nextval('public.guard_events_id_seq'::regclass);

INSERT INTO public.guard_events VALUES (1, '2026-11-24 00:27:30.620818+00', '{"time":"2026-11-24T00:27:30Z","ts_ms":1795480050620,"event":"run","key":"lint","outcome":"success","exit":0,"duration_ms":2}');
INSERT INTO public.guard_events VALUES (2, '2026-11-24 00:27:30.638879+00', '{"time":"2026-11-24T00:27:30Z","ts_ms":1795480050638,"event":"run","key":"lint","outcome":"success","exit":0,"duration_ms":2,"state":"closed"}');
INSERT INTO public.guard_events VALUES (3, '2026-11-24 00:27:30.656845+00', '{"time":"2026-11-24T00:27:30Z","ts_ms":1795480050656,"event":"run","key":"lint","outcome":"success","exit":0,"duration_ms":1,"state":"closed"}');
INSERT INTO public.guard_events VALUES (4, '2026-11-24 00:27:30.675918+00', '{"time":"2026-11-24T00:27:30Z","ts_ms":1795480050675,"event":"run","key":"flaky","outcome":"failure","exit":1,"duration_ms":1,"error":"exit 1"}');
INSERT INTO public.guard_events VALUES (5, '2026-11-24 00:27:30.695611+00', '{"time":"2026-11-24T00:27:30Z","ts_ms":1795480050695,"event":"run","key":"flaky","outcome":"failure","exit":1,"duration_ms":2,"error":"exit 1","state":"closed"}');
INSERT INTO public.guard_events VALUES (6, '2026-11-24 00:27:30.718534+00', '{"time":"2026-11-24T00:27:30Z","ts_ms":1795480050718,"event":"run","key":"flaky","outcome":"failure","exit":1,"duration_ms":2,"error":"exit 1","state":"open"}');
INSERT INTO public.guard_events VALUES (7, '2026-11-24 00:27:30.718534+00', '{"time":"2026-11-24T00:27:30Z","ts_ms":1795480050718,"event":"transition","key":"flaky","from":"closed","to":"open","reason":"3 consecutive failures","until":"2026-11-24T00:27:32Z"}');
INSERT INTO public.guard_events VALUES (8, '2026-11-24 00:27:31.958566+00', '{"time":"2026-11-24T00:27:31Z","ts_ms":1795480051958,"event":"skip","key":"flaky","reason":"open","state":"open","until":"2026-11-24T00:27:32Z"}');
INSERT INTO public.guard_events VALUES (9, '2026-11-24 00:27:32.641644+00', '{"time":"2026-11-24T00:27:32Z","ts_ms":1795480052641,"event":"run","key":"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk","outcome":"success","exit":0,"duration_ms":4}');
INSERT INTO public.guard_events VALUES (10, '2026-11-24 00:27:32.679601+00', '{"time":"2026-11-24T00:27:32Z","ts_ms":1795480052679,"event":"run","key":"it''s a \"quoted\" key''; DROP TABLE guard_state; --","outcome":"success","exit":0,"duration_ms":13}');
INSERT INTO public.guard_events VALUES (11, '2026-11-24 00:27:32.702071+00', '{"time":"2026-11-24T00:27:32Z","ts_ms":1795480052702,"event":"trip","key":"tripped","from":"closed","to":"open","reason":"by hand","until":"2026-11-24T01:27:33Z"}');
INSERT INTO public.guard_events VALUES (12, '2026-11-24 00:27:39.029852+00', '{"time":"2026-11-24T00:27:39Z","ts_ms":1795480059029,"event":"transition","key":"flaky","from":"open","to":"half_open","reason":"cooldown elapsed"}');
INSERT INTO public.guard_events VALUES (13, '2026-11-24 00:27:40.028618+00', '{"time":"2026-11-24T00:27:40Z","ts_ms":1795480060028,"event":"cooldown_record","key":"nginx","action":"restart","outcome":"success","used":1,"limit":2}');
INSERT INTO public.guard_events VALUES (14, '2026-11-24 00:27:40.047154+00', '{"time":"2026-11-24T00:27:40Z","ts_ms":1795480060047,"event":"cooldown_record","key":"nginx","action":"restart","outcome":"failure","error":"exited 137","used":2,"limit":2}');
INSERT INTO public.guard_events VALUES (15, '2026-11-24 00:27:40.099784+00', '{"time":"2026-11-24T00:27:40Z","ts_ms":1795480060099,"event":"cooldown_record","key":"web","action":"restart","outcome":"success","used":1,"limit":2}');
INSERT INTO public.guard_events VALUES (16, '2026-11-24 00:27:40.124525+00', '{"time":"2026-11-24T00:27:40Z","ts_ms":1795480060124,"event":"mark","key":"last_daily_digest"}');
INSERT INTO public.guard_events VALUES (17, '2026-11-24 00:27:44.787166+00', '{"time":"2026-11-24T00:27:44Z","ts_ms":1795480064787,"event":"run","key":"flaky","outcome":"cancelled","exit":143,"duration_ms":5755,"probe":true,"state":"half_open"}');

INSERT INTO public.guard_schema VALUES (1);

INSERT INTO public.guard_slots VALUES ('lint', 1048576, 'hostA', 6624, 321593, 6631, '2026-11-24 00:27:30.652502+00', NULL);
INSERT INTO public.guard_slots VALUES ('kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk', 1048576, 'hostA', 6780, 321790, 6787, '2026-11-24 00:27:32.634777+00', NULL);
INSERT INTO public.guard_slots VALUES ('it''s a "quoted" key''; DROP TABLE guard_state; --', 1048576, 'hostA', 6789, 321793, 6798, '2026-11-24 00:27:32.663569+00', NULL);
INSERT INTO public.guard_slots VALUES ('flaky', 1048576, 'hostB', 20236, 326735, 20270, '2026-11-24 00:28:22.090308+00', NULL);

INSERT INTO public.guard_state VALUES ('hooks', '{
  "version": 1,
  "hooks": {
    "lint": {
      "state": "closed",
      "failure_count": 0,
      "consecutive_failures": 0,
      "consecutive_successes": 3,
      "first_failure": null,
      "last_failure": null,
      "last_success": "2026-11-24T00:27:30+00:00",
      "last_error": null,
      "disabled_at": null,
      "retry_after": null,
      "last_run": "2026-11-24T00:27:30+00:00",
      "totals": {
        "successes": 3,
        "failures": 0,
        "ignored": 0,
        "cancelled": 0,
        "abandoned": 0,
        "skips": 0,
        "rejected": 0
      }
    },
    "flaky": {
      "state": "half_open",
      "failure_count": 3,
      "consecutive_failures": 0,
      "consecutive_successes": 0,
      "first_failure": "2026-11-24T00:27:30+00:00",
      "last_failure": "2026-11-24T00:27:30+00:00",
      "last_success": null,
      "last_error": "exit 1",
      "disabled_at": "2026-11-24T00:27:30+00:00",
      "retry_after": "2026-11-24T00:27:32+00:00",
      "open_reason": "3 consecutive failures",
      "probe_leases": [
        {
          "host": "hostB",
          "pid": 20236,
          "start_ticks": 326735,
          "acquired": "2026-11-24T00:28:22+00:00",
          "expires": "2026-11-24T00:38:23+00:00"
        }
      ],
      "last_run": "2026-11-24T00:27:44+00:00",
      "totals": {
        "successes": 0,
        "failures": 3,
        "ignored": 0,
        "cancelled": 1,
        "abandoned": 0,
        "skips": 1,
        "rejected": 0
      }
    },
    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk": {
      "state": "closed",
      "failure_count": 0,
      "consecutive_failures": 0,
      "consecutive_successes": 1,
      "first_failure": null,
      "last_failure": null,
      "last_success": "2026-11-24T00:27:32+00:00",
      "last_error": null,
      "disabled_at": null,
      "retry_after": null,
      "last_run": "2026-11-24T00:27:32+00:00",
      "totals": {
        "successes": 1,
        "failures": 0,
        "ignored": 0,
        "cancelled": 0,
        "abandoned": 0,
        "skips": 0,
        "rejected": 0
      }
    },
    "it''s a \"quoted\" key''; DROP TABLE guard_state; --": {
      "state": "closed",
      "failure_count": 0,
      "consecutive_failures": 0,
      "consecutive_successes": 1,
      "first_failure": null,
      "last_failure": null,
      "last_success": "2026-11-24T00:27:32+00:00",
      "last_error": null,
      "disabled_at": null,
      "retry_after": null,
      "last_run": "2026-11-24T00:27:32+00:00",
      "totals": {
        "successes": 1,
        "failures": 0,
        "ignored": 0,
        "cancelled": 0,
        "abandoned": 0,
        "skips": 0,
        "rejected": 0
      }
    },
    "tripped": {
      "state": "open",
      "failure_count": 0,
      "consecutive_failures": 0,
      "consecutive_successes": 0,
      "first_failure": null,
      "last_failure": null,
      "last_success": null,
      "last_error": null,
      "disabled_at": "2026-11-24T00:27:32+00:00",
      "retry_after": "2026-11-24T01:27:33+00:00",
      "open_reason": "by hand",
      "forced": true,
      "totals": {
        "successes": 0,
        "failures": 0,
        "ignored": 0,
        "cancelled": 0,
        "abandoned": 0,
        "skips": 0,
        "rejected": 0
      }
    }
  },
  "global_stats": {
    "total_executions": 9,
    "total_failures": 3,
    "hooks_disabled": 1,
    "last_updated": "2026-11-24T00:28:22+00:00",
    "last_sweep": "2026-11-24T00:27:30+00:00"
  },
  "checksum": "crc32:c8def966"
}
', '2026-11-24 00:28:22.093316+00');
INSERT INTO public.guard_state VALUES ('cooldown', '{
  "services": {
    "nginx": {
      "consecutive_healthy": 0,
      "redeployments": [],
      "restarts": [
        {
          "timestamp": "2026-11-24T00:27:40Z",
          "success": true
        },
        {
          "timestamp": "2026-11-24T00:27:40Z",
          "success": false,
          "error": "exited 137"
        }
      ]
    },
    "web": {
      "consecutive_healthy": 0,
      "redeployments": [],
      "restarts": [
        {
          "timestamp": "2026-11-24T00:27:40Z",
          "success": true
        }
      ]
    }
  },
  "last_daily_digest": "2026-11-24T00:27:40Z",
  "last_run": null
}
', '2026-11-24 00:27:40.124525+00');

SELECT pg_catalog.setval('public.guard_events_id_seq', 17, true);

ALTER TABLE ONLY public.guard_events
    ADD CONSTRAINT guard_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.guard_slots
    ADD CONSTRAINT guard_slots_pkey PRIMARY KEY (key, slot);

ALTER TABLE ONLY public.guard_state
    ADD CONSTRAINT guard_state_pkey PRIMARY KEY (name);

