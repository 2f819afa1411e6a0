// Generated from the OpenAPI document (/openapi.json) by web/scripts/gen-api-types.ts: do not edit.
// test/browser/openapi.test.ts fails when it is out of date; run `npx tsx web/scripts/gen-api-types.ts`.

export type AgreementAcceptInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  brief: string;
  agreementmethod?: string | number;
  referencecode?: string | number;
  lastmodifiedby?: string | number;
  status?: string | boolean | number;
  starttime?: string | number;
  finaltime?: string | number;
};

export type AgreementCancelInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  brief: string;
};

export type AgreementCancelRequestInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  brief: string;
};

export type AgreementGetInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  brief: string;
};

export type AgreementListUserAgreementsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type AgreementRevokeAllInput = {
  brief: string;
};

export type AppdataCreateInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  appname: string;
  appdata: Record<string, unknown>;
};

export type AppdataDeleteInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  appname: string;
};

export type AppdataGetInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  appname: string;
  version?: number;
};

export type AppdataListAppNamesInput = Record<string, unknown>;

export type AppdataListUserAppNamesInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type AppdataListVersionsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  appname: string;
};

export type AppdataUpdateInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  appname: string;
  appdata: Record<string, unknown>;
};

export type AppdataUpdateRequestInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  appname: string;
  appdata: Record<string, unknown>;
};

export type AuditGetEventInput = {
  auditeventuuid: string;
};

export type AuditListUserEventsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  offset?: number;
  limit?: number;
};

export type AuditProveEventsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  after?: number;
  limit?: number;
};

export type AuditVerifyInput = Record<string, unknown>;

export type BulkDeleteTokensInput = {
  unlockuuid: string;
  tokens: (string | number)[];
};

export type BulkListAllAuditEventsInput = {
  unlockuuid: string;
  offset?: number;
  limit?: number;
  includehousekeeping?: boolean;
};

export type BulkListAllUserRequestsInput = {
  unlockuuid: string;
  offset?: number;
  limit?: number;
  status?: "open" | "approved" | "canceled" | "all";
};

export type BulkListAllUsersInput = {
  unlockuuid: string;
  offset?: number;
  limit?: number;
};

export type BulkListFilesByTagInput = {
  unlockuuid: string;
  tag: string;
  offset?: number;
  limit?: number;
};

export type BulkListGroupUsersInput = {
  unlockuuid: string;
  groupid?: number;
  groupname?: string;
  offset?: number;
  limit?: number;
};

export type BulkListTokensInput = {
  unlockuuid: string;
  tokens: (string | number)[];
};

export type BulkListUnlockInput = Record<string, unknown>;

export type BulkListUsersInput = {
  unlockuuid: string;
  users: ({
    mode: "login" | "email" | "phone" | "custom";
    identity: string | number;
  })[];
};

export type CaptchaCreateInput = Record<string, unknown>;

export type ErasureConfirmInput = {
  eventid: string;
  subscriptionid?: string;
};

export type ErasureReceiptGetInput = {
  token: string;
  requestuuid: string;
};

export type ErasureStatusGetInput = {
  requestuuid?: string;
  token?: string;
  eventid?: string;
};

export type EventDeliveryListInput = {
  subscriptionid?: string;
  status?: "pending" | "delivered" | "dead";
  offset?: number;
  limit?: number;
  tenantid?: number;
};

export type EventReplayInput = {
  subscriptionid: string;
  fromeventid?: string;
  fromsequence?: number;
  fromtime?: string | number;
  limit?: number;
  tenantid?: number;
};

export type EventSubscriptionCreateInput = {
  url?: string;
  nats?: string;
  types: ("person.created" | "person.updated" | "person.erased" | "person.restored" | "consent.accepted" | "consent.withdrawn" | "consent.expired" | "appdata.updated" | "request.created" | "request.approved" | "request.rejected" | "token.detokenized" | "audit.checkpoint" | "erasure.overdue")[];
  fields?: string[];
  briefs?: string[];
  description?: string;
  confirmerasures?: boolean;
  confirmrole?: string;
  active?: boolean;
  tenantid?: number;
};

export type EventSubscriptionDeleteInput = {
  subscriptionid: string;
  tenantid?: number;
};

export type EventSubscriptionListInput = {
  tenantid?: number;
};

export type EventSubscriptionTestInput = {
  subscriptionid: string;
  tenantid?: number;
};

export type EventSubscriptionUpdateInput = {
  subscriptionid: string;
  url?: string;
  nats?: string;
  types?: ("person.created" | "person.updated" | "person.erased" | "person.restored" | "consent.accepted" | "consent.withdrawn" | "consent.expired" | "appdata.updated" | "request.created" | "request.approved" | "request.rejected" | "token.detokenized" | "audit.checkpoint" | "erasure.overdue")[];
  fields?: string[];
  briefs?: string[];
  description?: string;
  confirmerasures?: boolean;
  confirmrole?: string;
  active?: boolean;
  rotatesecret?: boolean;
  overlap?: string | number;
  tenantid?: number;
};

export type FileCreateInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  filename: string;
  filedata: string;
  mimetype?: string;
  tags?: string[] | string;
  finaltime?: string | number;
  slidingtime?: string | number;
};

export type FileDeleteInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  fileuuid: string;
};

export type FileGetInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  fileuuid?: string;
  filename?: string;
  raw?: boolean | "0" | "1" | "true" | "false";
};

export type FileListUserFilesInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  tag?: string;
};

export type FileReplaceTagsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  fileuuid: string;
  tags: string[] | string;
};

export type GroupAddUserInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  groupname?: string;
  groupid?: number;
  rolename?: string;
  roleid?: number;
};

export type GroupCreateInput = {
  groupname: string;
  groupdesc?: string;
  grouptype?: string;
};

export type GroupDeleteInput = {
  groupid?: number;
  groupname?: string;
};

export type GroupDeleteUserInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  groupid?: number;
  groupname?: string;
};

export type GroupGetInput = {
  groupid?: number;
  groupname?: string;
};

export type GroupListAllGroupsInput = Record<string, unknown>;

export type GroupListUserGroupsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type GroupUpdateInput = {
  groupid: number;
  groupname?: string;
  groupdesc?: string;
  grouptype?: string;
};

export type LegalBasisCreateInput = {
  brief: string;
  status?: string;
  module?: string;
  shortdesc?: string;
  fulldesc?: string;
  basistype?: string;
  requiredmsg?: string;
  requiredflag?: boolean | string | number;
  usercontrol?: boolean | string | number;
};

export type LegalBasisDeleteInput = {
  brief: string;
};

export type LegalBasisListAgreementsInput = Record<string, unknown>;

export type LegalBasisUpdateInput = {
  brief: string;
  newbrief?: string;
  status?: string;
  module?: string;
  shortdesc?: string;
  fulldesc?: string;
  basistype?: string;
  requiredmsg?: string;
  requiredflag?: boolean | string | number;
  usercontrol?: boolean | string | number;
};

export type PolicyCreateInput = {
  policyname: string;
  policydesc?: string;
  policy: Record<string, unknown> | unknown[];
  managedby?: string;
};

export type PolicyDeleteInput = {
  policyid?: number;
  policyname?: string;
};

export type PolicyExplainInput = {
  roleid?: number;
  rolename?: string;
  xtokenid?: string;
  operation: string;
  mode?: "login" | "token" | "email" | "phone" | "custom";
  identity?: string | number;
  tenantid?: number;
  request_metadata?: {
    [key: string]: unknown;
  };
};

export type PolicyGetInput = {
  policyid?: number;
  policyname?: string;
};

export type PolicyListAllPoliciesInput = Record<string, unknown>;

export type PolicyUpdateInput = {
  policyid?: number;
  policyname?: string;
  policydesc?: string;
  policy?: Record<string, unknown> | unknown[];
  managedby?: string;
};

export type ProcessingActivityCreateInput = {
  activity: string;
  title?: string;
  script?: string;
  fulldesc?: string;
  applicableto?: string;
};

export type ProcessingActivityDeleteInput = {
  activity: string;
};

export type ProcessingActivityLinkLegalBasisInput = {
  activity: string;
  brief: string;
};

export type ProcessingActivityListActivitiesInput = Record<string, unknown>;

export type ProcessingActivityUnlinkLegalBasisInput = {
  activity: string;
  brief: string;
};

export type ProcessingActivityUpdateInput = {
  activity: string;
  newactivity?: string;
  title?: string;
  script?: string;
  fulldesc?: string;
  applicableto?: string;
};

export type RoleCreateInput = {
  rolename: string;
  roledesc?: string;
  managedby?: string;
};

export type RoleDeleteInput = {
  roleid?: number;
  rolename?: string;
};

export type RoleGetInput = {
  roleid?: number;
  rolename?: string;
};

export type RoleLinkPolicyInput = {
  roleid?: number;
  rolename?: string;
  policyid?: number;
  policyname?: string;
};

export type RoleListAllRolesInput = {
  offset?: number;
  limit?: number;
};

export type RoleUnlinkPolicyInput = {
  roleid?: number;
  rolename?: string;
  policyid?: number;
  policyname?: string;
};

export type RoleUpdateInput = {
  roleid?: number;
  rolename?: string;
  roledesc?: string;
  managedby?: string;
};

export type SessionDeleteInput = {
  sessionuuid: string;
};

export type SessionGetInput = {
  sessionuuid: string;
};

export type SessionListUserSessionsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type SessionUpsertInput = {
  sessionuuid: string;
  sessiondata: Record<string, unknown>;
  mode?: "login" | "token" | "email" | "phone" | "custom";
  identity?: string | number;
  slidingtime?: string | number;
  finaltime?: string | number;
};

export type SharedRecordCreateInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  fields?: string | string[];
  partner?: string;
  appname?: string;
  finaltime?: string | number;
};

export type SharedRecordDeleteInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  recorduuid: string;
};

export type SharedRecordGetInput = {
  recorduuid: string;
};

export type SharedRecordListUserRecordsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type SystemDeleteUserProfilesInput = {
  unlockuuid: string;
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  tenantid?: number;
  tenantname?: string;
};

export type SystemGenerateWrappingKeyInput = {
  key1: string;
  key2: string;
  key3: string;
};

export type SystemGetKeyringStatusInput = Record<string, unknown>;

export type SystemGetOverviewInput = {
  days?: number;
};

export type SystemGetSystemStatsInput = Record<string, unknown>;

export type SystemGetUserHTMLReportInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type SystemGetUserProfilesInput = {
  unlockuuid: string;
  mode: "login" | "email" | "phone" | "custom";
  identity: string | number;
};

export type SystemGetUserReportInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type SystemResplitRecoveryKeyInput = {
  shares: unknown;
};

export type SystemRestoreUserProfileInput = {
  unlockuuid: string;
  token: string;
  tenantid?: number;
  tenantname?: string;
};

export type SystemRotateMasterKeyInput = Record<string, unknown>;

export type SystemSearchUserProfilesInput = {
  unlockuuid: string;
  identity: string | number;
  mode?: string;
};

export type SystemSetLicenseKeyInput = {
  licensekey: string;
};

export type TenantCreateInput = {
  tenantname: string;
  tenantorg: string;
  email?: string;
  managedby?: string;
  kek?: string;
};

export type TenantDeleteInput = {
  tenantid: number;
  managedby?: string;
};

export type TenantGetInput = {
  tenantid?: number;
  tenantname?: string;
};

export type TenantGetUIConfInput = Record<string, unknown>;

export type TenantListTenantsInput = {
  offset?: number;
  limit?: number;
  managedby?: string;
};

export type TenantRevokeKekInput = {
  unlockuuid: string;
  tenantid: number;
};

export type TenantRotateAdminTokenInput = {
  tenantid: number;
  managedby?: string;
};

export type TenantUpdateInput = {
  tenantid?: number;
  tenantname?: string;
  tenantorg?: string;
  email?: string;
  managedby?: string;
  kek?: string;
};

export type TokenCreateInput = {
  tokentype: "creditcard" | "unixtime" | "email" | "text";
  record: string | number;
  unique?: boolean;
  finaltime?: string | number;
  slidingtime?: string | number;
};

export type TokenCreateBulkInput = {
  records: ({
    tokentype: "creditcard" | "unixtime" | "email" | "text";
    record: string | number;
  })[];
  unique?: boolean;
  finaltime?: string | number;
  slidingtime?: string | number;
};

export type TokenDeleteInput = {
  token: string | number;
};

export type TokenGetInput = {
  token: string | number;
};

export type UserCreateInput = {
  profile: Record<string, unknown>;
  groupname?: string;
  groupid?: number;
  rolename?: string;
  roleid?: number;
  finaltime?: string | number;
  slidingtime?: string | number;
};

export type UserCreateBulkInput = {
  records: {
    profile: Record<string, unknown>;
    groupname?: string;
    groupid?: number;
    rolename?: string;
    roleid?: number;
  }[];
  finaltime?: string | number;
  slidingtime?: string | number;
};

export type UserDeleteInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type UserDeleteBulkInput = {
  users: ({
    mode: "login" | "token" | "email" | "phone" | "custom";
    identity: string | number;
  })[];
};

export type UserDeleteRequestInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type UserGetInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  version?: number;
};

export type UserListVersionsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type UserLoginInput = {
  mode: "email" | "phone";
  identity: string | number;
  smscode: string | number;
  loginid?: string;
};

export type UserLogoutInput = Record<string, unknown>;

export type UserPatchInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  patch: ({
    op: "add" | "remove" | "replace" | "move" | "copy" | "test";
    path: string;
    value?: unknown;
    from?: string;
  })[];
};

export type UserPatchRequestInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  patch: ({
    op: "add" | "remove" | "replace" | "move" | "copy" | "test";
    path: string;
    value?: unknown;
    from?: string;
  })[];
};

export type UserPreloginInput = {
  mode: "email" | "phone";
  identity: string | number;
  code: string | number;
  captchacode: string;
};

export type UserRequestApproveInput = {
  requestuuid: string;
  reason?: string;
};

export type UserRequestCancelInput = {
  requestuuid: string;
  reason?: string;
};

export type UserRequestGetInput = {
  requestuuid: string;
};

export type UserRequestListUserRequestsInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  offset?: number;
  limit?: number;
};

export type UserSearchInput = {
  unlockuuid: string;
  identity: string | number;
  mode?: string;
};

export type UserUpdateInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  profile: Record<string, unknown>;
};

export type UserUpdateRequestInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  profile: Record<string, unknown>;
};

export type XTokenCreateForRoleInput = {
  roleid?: number;
  rolename?: string;
  finaltime?: string | number;
  slidingtime?: string | number;
  managedby?: string;
};

export type XTokenCreateForUserInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
  finaltime?: string | number;
  slidingtime?: string | number;
};

export type XTokenListForRoleInput = {
  roleid?: number;
  rolename?: string;
};

export type XTokenListForUserInput = {
  mode: "login" | "token" | "email" | "phone" | "custom";
  identity: string | number;
};

export type XTokenRevokeInput = {
  xtokenid: string;
};

export interface Requests {
  AgreementAccept: AgreementAcceptInput;
  AgreementCancel: AgreementCancelInput;
  AgreementCancelRequest: AgreementCancelRequestInput;
  AgreementGet: AgreementGetInput;
  AgreementListUserAgreements: AgreementListUserAgreementsInput;
  AgreementRevokeAll: AgreementRevokeAllInput;
  AppdataCreate: AppdataCreateInput;
  AppdataDelete: AppdataDeleteInput;
  AppdataGet: AppdataGetInput;
  AppdataListAppNames: AppdataListAppNamesInput;
  AppdataListUserAppNames: AppdataListUserAppNamesInput;
  AppdataListVersions: AppdataListVersionsInput;
  AppdataUpdate: AppdataUpdateInput;
  AppdataUpdateRequest: AppdataUpdateRequestInput;
  AuditGetEvent: AuditGetEventInput;
  AuditListUserEvents: AuditListUserEventsInput;
  AuditProveEvents: AuditProveEventsInput;
  AuditVerify: AuditVerifyInput;
  BulkDeleteTokens: BulkDeleteTokensInput;
  BulkListAllAuditEvents: BulkListAllAuditEventsInput;
  BulkListAllUserRequests: BulkListAllUserRequestsInput;
  BulkListAllUsers: BulkListAllUsersInput;
  BulkListFilesByTag: BulkListFilesByTagInput;
  BulkListGroupUsers: BulkListGroupUsersInput;
  BulkListTokens: BulkListTokensInput;
  BulkListUnlock: BulkListUnlockInput;
  BulkListUsers: BulkListUsersInput;
  CaptchaCreate: CaptchaCreateInput;
  ErasureConfirm: ErasureConfirmInput;
  ErasureReceiptGet: ErasureReceiptGetInput;
  ErasureStatusGet: ErasureStatusGetInput;
  EventDeliveryList: EventDeliveryListInput;
  EventReplay: EventReplayInput;
  EventSubscriptionCreate: EventSubscriptionCreateInput;
  EventSubscriptionDelete: EventSubscriptionDeleteInput;
  EventSubscriptionList: EventSubscriptionListInput;
  EventSubscriptionTest: EventSubscriptionTestInput;
  EventSubscriptionUpdate: EventSubscriptionUpdateInput;
  FileCreate: FileCreateInput;
  FileDelete: FileDeleteInput;
  FileGet: FileGetInput;
  FileListUserFiles: FileListUserFilesInput;
  FileReplaceTags: FileReplaceTagsInput;
  GroupAddUser: GroupAddUserInput;
  GroupCreate: GroupCreateInput;
  GroupDelete: GroupDeleteInput;
  GroupDeleteUser: GroupDeleteUserInput;
  GroupGet: GroupGetInput;
  GroupListAllGroups: GroupListAllGroupsInput;
  GroupListUserGroups: GroupListUserGroupsInput;
  GroupUpdate: GroupUpdateInput;
  LegalBasisCreate: LegalBasisCreateInput;
  LegalBasisDelete: LegalBasisDeleteInput;
  LegalBasisListAgreements: LegalBasisListAgreementsInput;
  LegalBasisUpdate: LegalBasisUpdateInput;
  PolicyCreate: PolicyCreateInput;
  PolicyDelete: PolicyDeleteInput;
  PolicyExplain: PolicyExplainInput;
  PolicyGet: PolicyGetInput;
  PolicyListAllPolicies: PolicyListAllPoliciesInput;
  PolicyUpdate: PolicyUpdateInput;
  ProcessingActivityCreate: ProcessingActivityCreateInput;
  ProcessingActivityDelete: ProcessingActivityDeleteInput;
  ProcessingActivityLinkLegalBasis: ProcessingActivityLinkLegalBasisInput;
  ProcessingActivityListActivities: ProcessingActivityListActivitiesInput;
  ProcessingActivityUnlinkLegalBasis: ProcessingActivityUnlinkLegalBasisInput;
  ProcessingActivityUpdate: ProcessingActivityUpdateInput;
  RoleCreate: RoleCreateInput;
  RoleDelete: RoleDeleteInput;
  RoleGet: RoleGetInput;
  RoleLinkPolicy: RoleLinkPolicyInput;
  RoleListAllRoles: RoleListAllRolesInput;
  RoleUnlinkPolicy: RoleUnlinkPolicyInput;
  RoleUpdate: RoleUpdateInput;
  SessionDelete: SessionDeleteInput;
  SessionGet: SessionGetInput;
  SessionListUserSessions: SessionListUserSessionsInput;
  SessionUpsert: SessionUpsertInput;
  SharedRecordCreate: SharedRecordCreateInput;
  SharedRecordDelete: SharedRecordDeleteInput;
  SharedRecordGet: SharedRecordGetInput;
  SharedRecordListUserRecords: SharedRecordListUserRecordsInput;
  SystemDeleteUserProfiles: SystemDeleteUserProfilesInput;
  SystemGenerateWrappingKey: SystemGenerateWrappingKeyInput;
  SystemGetKeyringStatus: SystemGetKeyringStatusInput;
  SystemGetOverview: SystemGetOverviewInput;
  SystemGetSystemStats: SystemGetSystemStatsInput;
  SystemGetUserHTMLReport: SystemGetUserHTMLReportInput;
  SystemGetUserProfiles: SystemGetUserProfilesInput;
  SystemGetUserReport: SystemGetUserReportInput;
  SystemResplitRecoveryKey: SystemResplitRecoveryKeyInput;
  SystemRestoreUserProfile: SystemRestoreUserProfileInput;
  SystemRotateMasterKey: SystemRotateMasterKeyInput;
  SystemSearchUserProfiles: SystemSearchUserProfilesInput;
  SystemSetLicenseKey: SystemSetLicenseKeyInput;
  TenantCreate: TenantCreateInput;
  TenantDelete: TenantDeleteInput;
  TenantGet: TenantGetInput;
  TenantGetUIConf: TenantGetUIConfInput;
  TenantListTenants: TenantListTenantsInput;
  TenantRevokeKek: TenantRevokeKekInput;
  TenantRotateAdminToken: TenantRotateAdminTokenInput;
  TenantUpdate: TenantUpdateInput;
  TokenCreate: TokenCreateInput;
  TokenCreateBulk: TokenCreateBulkInput;
  TokenDelete: TokenDeleteInput;
  TokenGet: TokenGetInput;
  UserCreate: UserCreateInput;
  UserCreateBulk: UserCreateBulkInput;
  UserDelete: UserDeleteInput;
  UserDeleteBulk: UserDeleteBulkInput;
  UserDeleteRequest: UserDeleteRequestInput;
  UserGet: UserGetInput;
  UserListVersions: UserListVersionsInput;
  UserLogin: UserLoginInput;
  UserLogout: UserLogoutInput;
  UserPatch: UserPatchInput;
  UserPatchRequest: UserPatchRequestInput;
  UserPrelogin: UserPreloginInput;
  UserRequestApprove: UserRequestApproveInput;
  UserRequestCancel: UserRequestCancelInput;
  UserRequestGet: UserRequestGetInput;
  UserRequestListUserRequests: UserRequestListUserRequestsInput;
  UserSearch: UserSearchInput;
  UserUpdate: UserUpdateInput;
  UserUpdateRequest: UserUpdateRequestInput;
  XTokenCreateForRole: XTokenCreateForRoleInput;
  XTokenCreateForUser: XTokenCreateForUserInput;
  XTokenListForRole: XTokenListForRoleInput;
  XTokenListForUser: XTokenListForUserInput;
  XTokenRevoke: XTokenRevokeInput;
}

export type OperationName = keyof Requests;

export const OPERATION_NAMES: readonly OperationName[] = [
  'AgreementAccept',
  'AgreementCancel',
  'AgreementCancelRequest',
  'AgreementGet',
  'AgreementListUserAgreements',
  'AgreementRevokeAll',
  'AppdataCreate',
  'AppdataDelete',
  'AppdataGet',
  'AppdataListAppNames',
  'AppdataListUserAppNames',
  'AppdataListVersions',
  'AppdataUpdate',
  'AppdataUpdateRequest',
  'AuditGetEvent',
  'AuditListUserEvents',
  'AuditProveEvents',
  'AuditVerify',
  'BulkDeleteTokens',
  'BulkListAllAuditEvents',
  'BulkListAllUserRequests',
  'BulkListAllUsers',
  'BulkListFilesByTag',
  'BulkListGroupUsers',
  'BulkListTokens',
  'BulkListUnlock',
  'BulkListUsers',
  'CaptchaCreate',
  'ErasureConfirm',
  'ErasureReceiptGet',
  'ErasureStatusGet',
  'EventDeliveryList',
  'EventReplay',
  'EventSubscriptionCreate',
  'EventSubscriptionDelete',
  'EventSubscriptionList',
  'EventSubscriptionTest',
  'EventSubscriptionUpdate',
  'FileCreate',
  'FileDelete',
  'FileGet',
  'FileListUserFiles',
  'FileReplaceTags',
  'GroupAddUser',
  'GroupCreate',
  'GroupDelete',
  'GroupDeleteUser',
  'GroupGet',
  'GroupListAllGroups',
  'GroupListUserGroups',
  'GroupUpdate',
  'LegalBasisCreate',
  'LegalBasisDelete',
  'LegalBasisListAgreements',
  'LegalBasisUpdate',
  'PolicyCreate',
  'PolicyDelete',
  'PolicyExplain',
  'PolicyGet',
  'PolicyListAllPolicies',
  'PolicyUpdate',
  'ProcessingActivityCreate',
  'ProcessingActivityDelete',
  'ProcessingActivityLinkLegalBasis',
  'ProcessingActivityListActivities',
  'ProcessingActivityUnlinkLegalBasis',
  'ProcessingActivityUpdate',
  'RoleCreate',
  'RoleDelete',
  'RoleGet',
  'RoleLinkPolicy',
  'RoleListAllRoles',
  'RoleUnlinkPolicy',
  'RoleUpdate',
  'SessionDelete',
  'SessionGet',
  'SessionListUserSessions',
  'SessionUpsert',
  'SharedRecordCreate',
  'SharedRecordDelete',
  'SharedRecordGet',
  'SharedRecordListUserRecords',
  'SystemDeleteUserProfiles',
  'SystemGenerateWrappingKey',
  'SystemGetKeyringStatus',
  'SystemGetOverview',
  'SystemGetSystemStats',
  'SystemGetUserHTMLReport',
  'SystemGetUserProfiles',
  'SystemGetUserReport',
  'SystemResplitRecoveryKey',
  'SystemRestoreUserProfile',
  'SystemRotateMasterKey',
  'SystemSearchUserProfiles',
  'SystemSetLicenseKey',
  'TenantCreate',
  'TenantDelete',
  'TenantGet',
  'TenantGetUIConf',
  'TenantListTenants',
  'TenantRevokeKek',
  'TenantRotateAdminToken',
  'TenantUpdate',
  'TokenCreate',
  'TokenCreateBulk',
  'TokenDelete',
  'TokenGet',
  'UserCreate',
  'UserCreateBulk',
  'UserDelete',
  'UserDeleteBulk',
  'UserDeleteRequest',
  'UserGet',
  'UserListVersions',
  'UserLogin',
  'UserLogout',
  'UserPatch',
  'UserPatchRequest',
  'UserPrelogin',
  'UserRequestApprove',
  'UserRequestCancel',
  'UserRequestGet',
  'UserRequestListUserRequests',
  'UserSearch',
  'UserUpdate',
  'UserUpdateRequest',
  'XTokenCreateForRole',
  'XTokenCreateForUser',
  'XTokenListForRole',
  'XTokenListForUser',
  'XTokenRevoke',
];
