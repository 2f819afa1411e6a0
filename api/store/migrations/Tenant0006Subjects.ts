// Consent (legal bases, agreements), processing activities, sessions, shared records and user requests.
import { Migration } from '@mikro-orm/migrations';

export class Tenant0006Subjects extends Migration {
  override name = 'Tenant0006Subjects';

  override up(): void {
    // A basis with agreements is never dropped: LegalBasisDelete marks it deleted so the agreements keep it.
    this.addSql(`create table legal_bases (
      brief text primary key,
      status text not null,
      module text,
      shortdesc text,
      fulldesc text,
      basistype text not null,
      requiredmsg text,
      requiredflag boolean not null default false,
      usercontrol boolean not null default true,
      creationtime bigint not null,
      updated bigint not null)`);
    // Free-text details (method, reference code, who changed it) are sealed; times and status drive queries.
    this.addSql(`create table agreements (
      user_token uuid not null references users (token) on delete cascade,
      brief text not null references legal_bases (brief) on update cascade,
      status text not null,
      details bytea not null,
      starttime bigint not null,
      endtime bigint not null default 0,
      creationtime bigint not null,
      updated bigint not null,
      primary key (user_token, brief))`);
    this.addSql(`create index agreements_brief on agreements (brief, status)`);
    this.addSql(`create index agreements_due on agreements (endtime) where endtime > 0 and status in ('active', 'pending')`);
    this.addSql(`create index agreements_start on agreements (starttime) where status = 'pending'`);
    this.addSql(`create table processing_activities (
      activity text primary key,
      title text,
      script text,
      fulldesc text,
      applicableto text,
      creationtime bigint not null,
      updated bigint not null)`);
    this.addSql(`create table activity_legal_bases (
      activity text not null references processing_activities (activity) on update cascade on delete cascade,
      brief text not null references legal_bases (brief) on update cascade on delete cascade,
      primary key (activity, brief))`);
    this.addSql(`create table sessions (
      sessionuuid uuid primary key,
      user_token uuid references users (token) on delete cascade,
      data bytea not null,
      created bigint not null,
      updated bigint not null,
      finaltime bigint,
      slidingtime bigint,
      expires bigint not null)`);
    this.addSql(`create index sessions_user on sessions (user_token) where user_token is not null`);
    this.addSql(`create index sessions_expires on sessions (expires)`);
    this.addSql(`create table shared_records (
      recorduuid uuid primary key,
      user_token uuid not null references users (token) on delete cascade,
      fields text[],
      appname text,
      partner text,
      created bigint not null,
      expires bigint not null)`);
    this.addSql(`create index shared_records_expires on shared_records (expires)`);
    // The proposed change is sealed; its keyed fingerprint finds an identical open request without opening it.
    this.addSql(`create table user_requests (
      requestuuid uuid primary key,
      user_token uuid not null references users (token) on delete cascade,
      requesttype text not null,
      status text not null,
      appname text,
      brief text,
      change bytea,
      fingerprint text not null,
      reason text,
      creationtime bigint not null,
      updated bigint not null)`);
    this.addSql(`create index user_requests_user on user_requests (user_token, creationtime)`);
    this.addSql(`create index user_requests_status on user_requests (status, creationtime)`);
    this.addSql(`create unique index user_requests_open on user_requests (user_token, fingerprint) where status = 'open'`);
  }
}
